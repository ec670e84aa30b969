package runner

import (
	"sync"

	"github.com/acprun/acprun/scenario"
)

// Observer is told about a run as it happens. Calls are serialised: an
// Observer needs no locking of its own.
type Observer interface {
	ScenarioStarted(sc *scenario.Scenario)
	TurnStarted(sc *scenario.Scenario, index int) // index from 1
	TurnFinished(sc *scenario.Scenario, turn TurnResult)
	Warning(sc *scenario.Scenario, msg string)
	PermissionDecided(scenarioName string, p Permission)
	ScenarioFinished(sc *scenario.Scenario, r Result)
}

// observer serialises calls to an Observer; a nil one does nothing.
type observer struct {
	mu sync.Mutex
	o  Observer
}

func (o *observer) started(sc *scenario.Scenario) {
	if o == nil || o.o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.o.ScenarioStarted(sc)
}

func (o *observer) turnStarted(sc *scenario.Scenario, index int) {
	if o == nil || o.o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.o.TurnStarted(sc, index)
}

func (o *observer) warning(sc *scenario.Scenario, msg string) {
	if o == nil || o.o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.o.Warning(sc, msg)
}

func (o *observer) turn(sc *scenario.Scenario, t TurnResult) {
	if o == nil || o.o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.o.TurnFinished(sc, t)
}

func (o *observer) permission(name string, p Permission) {
	if o == nil || o.o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.o.PermissionDecided(name, p)
}

func (o *observer) finished(sc *scenario.Scenario, r Result) {
	if o == nil || o.o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.o.ScenarioFinished(sc, r)
}
