// Package acp speaks the Agent Client Protocol (ACP): JSON-RPC 2.0 messages,
// one compact JSON object per line, over a byte stream such as an agent's
// stdin and stdout.
//
// The package has two layers. The wire types (InitializeRequest,
// SessionUpdate, ContentBlock, …) describe ACP's messages. The connection
// (Conn, Call, Handler) moves JSON-RPC requests, notifications and responses
// and knows no ACP method names, so the same Conn serves the client side
// (acprun) and the agent side (the mock agent).
//
// A Conn handles incoming notifications one at a time in arrival order.
// Incoming requests start in that same order but each runs in its own
// goroutine, so a request that waits never holds up later notifications.
// Responses to our own calls travel through the same ordered stream: when
// Call.Await returns, every notification that arrived before the response
// has been handled.
package acp
