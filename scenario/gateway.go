package scenario

import "github.com/acprun/acprun/internal/gateway"

// Gateway (stub: replaced by the scenario branch).
type Gateway struct {
	Pos      Pos
	Mode     string
	ModePos  Pos
	Dir      string
	Timing   bool
	Targets  []GatewayTarget
	Prices   map[string]gateway.Price
	Currency string
}

// GatewayTarget (stub).
type GatewayTarget struct {
	Env      string
	JSONPath []string
	Upstream string
	KeyEnv   string
}
