package acp_test

import (
	"testing"

	"github.com/acprun/acprun/acp"
)

func TestErrorSummary(t *testing.T) {
	for _, tt := range []struct {
		err  acp.Error
		want string
	}{
		{acp.Error{Code: -32603, Message: "Internal error"}, "Internal error (code -32603)"},
		{acp.Error{Code: -32603}, "no message (code -32603)"},
		{acp.Error{Code: 429, Message: " \t"}, "no message (code 429)"},
	} {
		if got := tt.err.Summary(); got != tt.want {
			t.Errorf("%+v.Summary() = %q; want %q", tt.err, got, tt.want)
		}
	}
}
