// Package runner drives ACP agents through validated scenarios and returns
// a report.Report. For each scenario it starts the agent in its own process group
// (Agent), initializes it, opens one session and plays each turn's
// session/prompt; it answers session/request_permission by the scenario's
// policy and elicitation/create from its answers, serves fs/* and
// terminal/* inside the scenario's roots, and records everything the agent
// sends. Probe starts an agent and opens a
// session the same way (one handshake for both), and reports what the agent
// offers. DryRun tells what Run would do, with the limits (Resolve) and the
// policy Run would use, and starts nothing. PermissionRequest,
// RecordedPermissionRequest and SketchedPermissionRequest turn ACP tool
// calls into the approve.Request a policy sees, for the run and for
// acprun explain alike.
//
// Deadlines (turn, idle, scenario, run) and interrupts cancel a turn the
// way the protocol asks: session/cancel, pending permission requests
// answered cancelled, then a grace period for the agent's answer before it
// is killed. Run never prints: progress goes to an Observer, and failures
// of scenarios are data in the report, not errors.
package runner
