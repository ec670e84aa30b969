package redact_test

import (
	"fmt"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/redact"
)

func Example() {
	env := map[string]string{"CI": "true", "API_TOKEN": "tok-1234abcd"}
	environ := []string{"HOME=/home/me", "GITHUB_TOKEN=ghp_0123456789abcdef"}
	r := redact.New(redact.Secrets(env, environ)...)

	// Plain text, such as an agent's stderr.
	fmt.Println(r.String("auth failed: tok-1234abcd"))

	// JSON: escapes cannot hide a secret, and true stays true.
	line := []byte(`{"ok":true,"token":"\u0067hp_0123456789abcdef","toolCallId":"call-tok-1234abcd"}`)
	fmt.Printf("%s\n", r.JSON(line))

	// Go values: every exported field, element and map key.
	type result struct {
		Warnings []string
		Updates  map[string]int
		RawInput json.RawMessage
	}
	res := result{
		Warnings: []string{"turn 1: tok-1234abcd"},
		Updates:  map[string]int{"ghp_0123456789abcdef": 1, "[REDACTED]": 2},
		RawInput: json.RawMessage(`{"cmd":"echo tok-1234abcd"}`),
	}
	r.Value(&res)
	fmt.Printf("%q %v %s\n", res.Warnings, res.Updates, res.RawInput)
	// Output:
	// auth failed: [REDACTED]
	// {"ok":true,"token":"[REDACTED]","toolCallId":"call-[REDACTED]"}
	// ["turn 1: [REDACTED]"] map[[REDACTED]:2 [REDACTED]#2:1] {"cmd":"echo [REDACTED]"}
}
