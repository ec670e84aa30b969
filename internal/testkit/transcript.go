package testkit

import (
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

// StreamedTexts returns the texts of the chunks of each kind
// (agent_message_chunk, agent_thought_chunk…) in the transcript tr, each
// joined as the agent meant it. Lines it cannot read count for none.
func StreamedTexts(tr []byte) map[string]string {
	texts := map[string]string{}
	for line := range strings.SplitSeq(string(tr), "\n") {
		var l struct {
			Msg struct {
				Params struct {
					Update struct {
						SessionUpdate string `json:"sessionUpdate"`
						Content       struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"update"`
				} `json:"params"`
			} `json:"msg"`
		}
		if line != "" && json.Unmarshal([]byte(line), &l) == nil {
			texts[l.Msg.Params.Update.SessionUpdate] += l.Msg.Params.Update.Content.Text
		}
	}
	return texts
}
