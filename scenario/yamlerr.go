package scenario

import (
	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/yamlsyntax"
)

// syntaxError records a YAML syntax error that dec returned: at the
// offending token, with the parser's context and a hint when one helps.
func (p *fileParser) syntaxError(dec *yaml.Decoder, err error) {
	line, col, msg := yamlsyntax.Problem(dec, err, p.src)
	p.errorAt(Pos{File: p.file, Line: line, Col: col}, "YAML syntax: %s", msg)
}
