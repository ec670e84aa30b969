package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/acprun/acprun/acp"
)

// benchMessages is how many notifications each benchmark iteration moves.
const benchMessages = 1_000_000

// benchChunk is the small struct both benchmarks decode params into.
type benchChunk struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string `json:"sessionUpdate"`
		Content       struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"update"`
}

// benchStream is benchMessages agent_message_chunk notifications of about
// 150 bytes each, one per line.
var benchStream = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	for i := range benchMessages {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk %07d, lorem ipsum"}}}}`+"\n", i)
	}
	return b.Bytes()
})

// benchReport reports messages per second and allocations per message.
func benchReport(b *testing.B, before *runtime.MemStats, msgs int) {
	b.Helper()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(msgs), "allocs/msg")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(msgs), "B/msg")
}

func BenchmarkConnNotifications(b *testing.B) {
	data := benchStream()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	total := 0
	for b.Loop() {
		n := 0
		h := acp.HandlerFunc(func(_ context.Context, req *acp.Request) (any, error) {
			var p benchChunk
			if err := req.DecodeParams(&p); err != nil {
				return nil, err
			}
			if p.Update.SessionUpdate == "agent_message_chunk" {
				n++
			}
			return nil, nil
		})
		c := acp.NewConn(bytes.NewReader(data), io.Discard, h, nil)
		<-c.Done()
		if err := c.Err(); !errors.Is(err, io.EOF) {
			b.Fatalf("Err() = %v; want EOF", err)
		}
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		if n != benchMessages {
			b.Fatalf("handled %d notifications; want %d", n, benchMessages)
		}
		total += n
	}
	benchReport(b, &before, total)
}

func BenchmarkBaselineBufioJSON(b *testing.B) {
	type envelope struct {
		JSONRPC string     `json:"jsonrpc"`
		Method  string     `json:"method"`
		Params  benchChunk `json:"params"`
	}
	data := benchStream()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	total := 0
	for b.Loop() {
		n := 0
		br := bufio.NewReaderSize(bytes.NewReader(data), 64<<10)
		for {
			line, err := br.ReadSlice('\n')
			if len(line) > 0 {
				var m envelope
				if err := json.Unmarshal(line, &m); err != nil {
					b.Fatal(err)
				}
				if m.Params.Update.SessionUpdate == "agent_message_chunk" {
					n++
				}
			}
			if err != nil {
				break
			}
		}
		if n != benchMessages {
			b.Fatalf("decoded %d notifications; want %d", n, benchMessages)
		}
		total += n
	}
	benchReport(b, &before, total)
}

// BenchmarkConnRoundTrip measures one request from the peer answered by a
// Handler, over OS pipes, one at a time: the permission round trip of a run.
func BenchmarkConnRoundTrip(b *testing.B) {
	inR, inW, err := os.Pipe() // peer → Conn
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe() // Conn → peer
	if err != nil {
		b.Fatal(err)
	}
	h := acp.HandlerFunc(func(_ context.Context, req *acp.Request) (any, error) {
		var p acp.RequestPermissionRequest
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		return acp.Selected(p.Options[0].OptionID), nil
	})
	c := acp.NewConn(inR, outW, h, nil)
	defer c.Close()
	br := bufio.NewReader(outR)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t%d","title":"read file","kind":"read","status":"pending"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`+"\n", i, i)
		line, err := br.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(line, []byte(`"allow"`)) {
			b.Fatalf("answer %s", line)
		}
	}
	inW.Close()
	<-c.Done()
}
