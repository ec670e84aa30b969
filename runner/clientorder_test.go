package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

// TestPipelinedFileRequestsInOrder: the agent's fs requests sent without
// waiting for their answers are served one at a time, in the order it
// sent them: two writes to one file end as the second, and a read after
// them reads the whole second write, every time.
func TestPipelinedFileRequestsInOrder(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		const files = 20
		first, last := strings.Repeat("A", 60000), strings.Repeat("B", 10)
		var requests []string
		for i := range files {
			path := filepath.Join(dir, fmt.Sprintf("f%d.txt", i))
			for j, content := range []string{first, last} {
				requests = append(requests, fmt.Sprintf(`{"jsonrpc":"2.0","id":"w%d_%d","method":"fs/write_text_file","params":{"sessionId":"mock-session-1","path":%q,"content":%q}}`, i, j, path, content))
			}
			requests = append(requests, fmt.Sprintf(`{"jsonrpc":"2.0","id":"r%d","method":"fs/read_text_file","params":{"sessionId":"mock-session-1","path":%q}}`, i, path))
		}
		res, sent := playRequests(t, dir, requests, nil)

		for i := range files {
			got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)))
			if err != nil || string(got) != last {
				t.Errorf("f%d.txt = %d bytes starting %.12q (%v); want the last write, %q", i, len(got), got, err, last)
			}
			if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":"r%d","result":{"content":%q}}`, i, last); !strings.Contains(sent, want) {
				t.Errorf("no answer %s: the read did not read the last write whole", want)
			}
		}
		for _, r := range res.Turns[0].ClientRequests {
			if r.Refused != "" || r.Error != "" {
				t.Errorf("client request %+v: want it served", r)
			}
			if r.Method == "fs/read_text_file" && r.Bytes != len(last) {
				t.Errorf("read of %s recorded %d bytes; want %d", r.Path, r.Bytes, len(last))
			}
		}
	})
}
