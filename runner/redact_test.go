package runner

import (
	"reflect"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
)

// plant fills every string, map key, []byte (raw JSON) and nested value
// reachable from v with the secret, allocating pointers, one element per
// slice and one entry per map, so that every field a Result can carry holds
// it.
func plant(v reflect.Value, secret string, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("id-" + secret + " and \"" + secret + "\"")
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		plant(v.Elem(), secret, depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				plant(v.Field(i), secret, depth+1)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // json.RawMessage
			raw, _ := json.Marshal(map[string]any{"k-" + secret: []any{secret, true, 3}, "esc": "x"})
			raw = []byte(strings.Replace(string(raw), `"esc":"x"`, `"esc":"\u0067`+secret[1:]+`"`, 1))
			v.SetBytes(raw)
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		plant(s.Index(0), secret, depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		plant(k, secret, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		plant(e, secret, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

// TestResultHasNoUnredactedField plants a secret in every field of a
// Result and checks that the redaction runScenario applies leaves none,
// raw, JSON-escaped or \u-escaped, and keeps the JSON valid.
func TestResultHasNoUnredactedField(t *testing.T) {
	const secret = "ghp_planted1234567890"
	var res report.Result
	plant(reflect.ValueOf(&res), secret, 0)
	if len(res.Turns) != 1 || len(res.Turns[0].ToolCalls) != 1 || len(res.Turns[0].Updates) != 1 {
		t.Fatalf("plant did not fill the result: %+v", res.Turns)
	}
	redact.New(secret).Value(&res)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("marshal after redaction: %v", err)
	}
	if strings.Contains(string(b), "planted") {
		t.Errorf("a secret is left in %s", b)
	}
	if !strings.Contains(string(b), redact.Marker) || !strings.Contains(string(b), `true,3`) {
		t.Errorf("redacted result %s: want markers, and literals kept", b)
	}
}
