package provider

import (
	"bytes"
	"strconv"

	json "github.com/go-json-experiment/json/v1"
)

// Usage is token counts as a provider reports them. Input excludes the
// cached tokens read (CacheRead) and written (CacheWrite); Thought is the
// reasoning tokens, when reported apart from Output.
//
// The APIs count differently; Usage counts every token once, so that
// Total is the API's own total where it reports one:
//   - Anthropic: input_tokens, output_tokens (thinking included: Thought
//     is 0), cache_read_input_tokens, cache_creation_input_tokens;
//   - OpenAI Chat Completions and Responses: the prompt's (input's) count
//     includes its cached tokens and the completion's (output's) its
//     reasoning tokens: Input is the prompt less the cached tokens, Output
//     the completion less the reasoning tokens (in Thought);
//   - Gemini: the prompt's count includes its cached content, the
//     candidates' count excludes the thoughts: Input is the prompt less
//     the cached content plus the tool-use prompt, Output the candidates.
type Usage struct {
	Input, Output, CacheRead, CacheWrite, Thought int64
}

// Total is every token counted.
func (u Usage) Total() int64 {
	return u.Input + u.Output + u.CacheRead + u.CacheWrite + u.Thought
}

// Meter collects the usage an answer reports, fed as it streams. Whatever
// it is fed, it never fails: what is not a usage report of its API is
// ignored. A Meter is for one goroutine.
type Meter struct {
	api API
	// The counts as the API reports them, each the latest reported.
	input, output, cacheRead, cacheWrite, thought, toolUse count
	model                                                  string
}

// NewMeter returns a meter for an answer of api (Unknown: one that reports
// nothing).
func NewMeter(api API) *Meter { return &Meter{api: api} }

// Event feeds one server-sent event of the answer: its event name ("" for
// none) and its data (the data lines joined by "\n"). Every API's event
// data says what it is, so the name is not needed.
func (m *Meter) Event(name string, data []byte) { m.feed(data) }

// Body feeds a whole JSON answer (not streamed; for Gemini's
// streamGenerateContent without alt=sse, the JSON array of its answers).
func (m *Meter) Body(body []byte) {
	if m.api == Gemini {
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
			var list []json.RawMessage
			json.Unmarshal(t, &list)
			for _, a := range list {
				m.feed(a)
			}
			return
		}
	}
	m.feed(body)
}

// feed reads one answer or event of m's API. A value of the wrong type
// leaves its field unset (json.Unmarshal goes on past it).
func (m *Meter) feed(data []byte) {
	switch m.api {
	case Anthropic:
		var a struct {
			Model   string          `json:"model"`
			Usage   *anthropicUsage `json:"usage"`
			Message *struct {
				Model string          `json:"model"`
				Usage *anthropicUsage `json:"usage"`
			} `json:"message"` // message_start
		}
		json.Unmarshal(data, &a)
		if a.Message != nil {
			m.setModel(a.Message.Model)
			m.anthropic(a.Message.Usage)
		}
		m.setModel(a.Model)
		m.anthropic(a.Usage)
	case OpenAIChat:
		var a struct {
			Model string `json:"model"`
			Usage *struct {
				Prompt            count         `json:"prompt_tokens"`
				Completion        count         `json:"completion_tokens"`
				PromptDetails     cachedPart    `json:"prompt_tokens_details"`
				CompletionDetails reasoningPart `json:"completion_tokens_details"`
			} `json:"usage"`
		}
		json.Unmarshal(data, &a)
		m.setModel(a.Model)
		if u := a.Usage; u != nil {
			m.openAI(u.Prompt, u.Completion, u.PromptDetails, u.CompletionDetails)
		}
	case OpenAIResponses:
		var a struct {
			responsesAnswer
			Response *responsesAnswer `json:"response"` // response.completed, .incomplete, .failed
		}
		json.Unmarshal(data, &a)
		m.responses(&a.responsesAnswer)
		if a.Response != nil {
			m.responses(a.Response)
		}
	case Gemini:
		var a struct {
			ModelVersion  string `json:"modelVersion"`
			UsageMetadata *struct {
				Prompt     count `json:"promptTokenCount"`
				Candidates count `json:"candidatesTokenCount"`
				Cached     count `json:"cachedContentTokenCount"`
				Thoughts   count `json:"thoughtsTokenCount"`
				ToolUse    count `json:"toolUsePromptTokenCount"`
			} `json:"usageMetadata"`
		}
		json.Unmarshal(data, &a)
		m.setModel(a.ModelVersion)
		if u := a.UsageMetadata; u != nil {
			m.input.update(u.Prompt)
			m.output.update(u.Candidates)
			m.cacheRead.update(u.Cached)
			m.thought.update(u.Thoughts)
			m.toolUse.update(u.ToolUse)
		}
	}
}

// anthropicUsage is Anthropic's usage, in a message (message_start, a
// whole answer) or a message_delta (where the counts other than
// output_tokens may be null or missing).
type anthropicUsage struct {
	Input      count `json:"input_tokens"`
	Output     count `json:"output_tokens"`
	CacheRead  count `json:"cache_read_input_tokens"`
	CacheWrite count `json:"cache_creation_input_tokens"`
}

func (m *Meter) anthropic(u *anthropicUsage) {
	if u == nil {
		return
	}
	m.input.update(u.Input)
	m.output.update(u.Output)
	m.cacheRead.update(u.CacheRead)
	m.cacheWrite.update(u.CacheWrite)
}

// responsesAnswer is what Meter reads of an OpenAI Responses response
// object (a whole answer, or the "response" of a stream's event).
type responsesAnswer struct {
	Model string `json:"model"`
	Usage *struct {
		Input         count         `json:"input_tokens"`
		Output        count         `json:"output_tokens"`
		InputDetails  cachedPart    `json:"input_tokens_details"`
		OutputDetails reasoningPart `json:"output_tokens_details"`
	} `json:"usage"`
}

func (m *Meter) responses(a *responsesAnswer) {
	m.setModel(a.Model)
	if u := a.Usage; u != nil {
		m.openAI(u.Input, u.Output, u.InputDetails, u.OutputDetails)
	}
}

// cachedPart and reasoningPart are OpenAI's details of a prompt's (input's)
// and a completion's (output's) count, in Chat Completions and Responses
// alike.
type (
	cachedPart struct {
		Cached count `json:"cached_tokens"`
	}
	reasoningPart struct {
		Reasoning count `json:"reasoning_tokens"`
	}
)

// openAI takes an OpenAI usage report: the prompt's and the completion's
// counts and their details (a missing one leaves its count unset).
func (m *Meter) openAI(input, output count, in cachedPart, out reasoningPart) {
	m.input.update(input)
	m.output.update(output)
	m.cacheRead.update(in.Cached)
	m.thought.update(out.Reasoning)
}

func (m *Meter) setModel(model string) {
	if model != "" {
		m.model = model
	}
}

// Usage is the usage reported so far (streams report it in parts: the
// latest count of each kind wins); ok is false when none was reported.
func (m *Meter) Usage() (u Usage, ok bool) {
	ok = m.input.set || m.output.set || m.cacheRead.set || m.cacheWrite.set || m.thought.set || m.toolUse.set
	switch m.api {
	case Anthropic:
		u = Usage{Input: m.input.n, Output: m.output.n, CacheRead: m.cacheRead.n, CacheWrite: m.cacheWrite.n}
	case OpenAIChat, OpenAIResponses:
		u = Usage{Input: less(m.input.n, m.cacheRead.n), Output: less(m.output.n, m.thought.n),
			CacheRead: m.cacheRead.n, Thought: m.thought.n}
	case Gemini:
		u = Usage{Input: less(m.input.n, m.cacheRead.n) + m.toolUse.n, Output: m.output.n,
			CacheRead: m.cacheRead.n, Thought: m.thought.n}
	}
	return u, ok
}

// less is a − b, or 0 for a report that says a part is larger than its
// whole.
func less(a, b int64) int64 { return max(a-b, 0) }

// Model is the model the answer names (the latest it named), "" when none.
func (m *Meter) Model() string { return m.model }

// maxCount bounds a token count: a larger one (like a negative one) is no
// count but garbage, and left out so that sums cannot overflow.
const maxCount = 1 << 48

// count is one token count of a usage report: set when the report has it
// as a whole number in [0, maxCount] (null, missing or anything else
// leaves it unset).
type count struct {
	n   int64
	set bool
}

// UnmarshalJSON never fails, so that one odd count does not hide the rest
// of a report.
func (c *count) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err == nil && n >= 0 && n <= maxCount {
		*c = count{n: n, set: true}
	}
	return nil
}

// update makes c the latest count when it was reported.
func (c *count) update(latest count) {
	if latest.set {
		*c = latest
	}
}
