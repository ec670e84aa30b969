package replay

import (
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/redact"
)

// SecretsVar names the variable, in the environment of a replay acprun
// starts (agent: {replay: …}, or a command [acprun, replay, PATH]), that
// holds the secrets of the run as a JSON array of strings: the replay
// compares what it receives with the recording once both are redacted
// with them (Options.Redact), as acprun redacted the recording.
const SecretsVar = "ACPRUN_REPLAY_SECRETS"

// SecretsEnv is the SecretsVar entry ("NAME=value") that hands red's
// secrets to a replay.
func SecretsEnv(red *redact.Redactor) string {
	b, _ := json.Marshal(red.Values())
	return SecretsVar + "=" + string(b)
}

// RedactorOf returns the redactor of a replay started with environ: the
// secrets SecretsVar holds, when it is set (acprun started the replay);
// else those acprun would find in environ (redact.Secrets: the values of
// secret-looking variables).
func RedactorOf(environ []string) *redact.Redactor {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, SecretsVar+"="); ok {
			var secrets []string
			if json.Unmarshal([]byte(v), &secrets) == nil {
				return redact.New(secrets...)
			}
		}
	}
	return redact.New(redact.Secrets(nil, environ)...)
}
