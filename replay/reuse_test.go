package replay

import (
	"errors"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/srcerr"
)

// TestParseAgentReusesPendingID: a request of the agent with the id of
// one of its requests not answered yet is refused at its id, as a line
// that does not pair up; acprun records it so when the agent sent it so,
// so the error says the agent reuses ids and gives no advice to record the
// transcript again, which would record the same.
func TestParseAgentReusesPendingID(t *testing.T) {
	const text = `{"t":1,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}
{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file"}}
{"t":1,"dir":"a2c","msg":{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file"}}
`
	_, err := parse("t.jsonl", strings.NewReader(text), nil)
	const want = "t.jsonl:3:48: the agent's request reuses id 5, that of its request at line 2, not answered yet: the agent reuses the ids of its pending requests, and a replay cannot tell which request each answer of acprun's is for"
	var e *srcerr.Error
	if !errors.As(err, &e) || err.Error() != want {
		t.Errorf("Parse = %v, want an *srcerr.Error saying %q", err, want)
	}
}
