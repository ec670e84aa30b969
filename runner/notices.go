package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// Bounds on what a turn keeps of the agent's notices and compactions;
// Updates counts them all.
const (
	maxNotices     = 100
	maxCompactions = 100
	maxSummary     = 64 << 10
)

// noticeRecord is the record of a notice update.
func noticeRecord(n *acp.Notice, late bool) report.Notice {
	return report.Notice{Severity: string(n.Severity), Title: n.Title, Description: n.Description, Late: late}
}

// recordNotice keeps a notice of the turn. The caller holds the session's
// lock.
func (t *turnState) recordNotice(n *acp.Notice, late bool) {
	if len(t.notices) < maxNotices {
		t.notices = append(t.notices, noticeRecord(n, late))
	}
}

// compaction returns the record of the turn's compaction id, creating it
// (in_progress) for an id the turn has not seen; nil when the turn keeps
// no more. The caller holds the session's lock.
func (t *turnState) compaction(id string, late bool) *report.Compaction {
	for _, c := range t.compactions {
		if c.ID == id {
			return c
		}
	}
	if len(t.compactions) >= maxCompactions {
		return nil
	}
	c := &report.Compaction{ID: id, Status: string(acp.CompactionInProgress), Late: late}
	t.compactions = append(t.compactions, c)
	return c
}

// recordCompaction merges a compaction_update into the turn's record of
// its compaction: the status replaced, the summary and the error replaced
// when the update carries them.
func (t *turnState) recordCompaction(u *acp.CompactionUpdate, late bool) {
	c := t.compaction(u.CompactionID, late)
	if c == nil {
		return
	}
	c.Status = string(u.Status)
	if u.Summary != nil {
		c.Summary, c.SummaryTruncated = "", false
		for _, b := range u.Summary {
			appendSummary(c, b)
		}
	}
	if u.Error != "" {
		c.Error = u.Error
	}
}

// recordCompactionChunk appends a compaction_summary_chunk to the summary
// of its compaction.
func (t *turnState) recordCompactionChunk(u *acp.CompactionSummaryChunk, late bool) {
	if c := t.compaction(u.CompactionID, late); c != nil {
		appendSummary(c, u.Content)
	}
}

// appendSummary appends the text of block b to c's summary, up to
// maxSummary bytes; other content is not kept.
func appendSummary(c *report.Compaction, b acp.ContentBlock) {
	if b.Type != acp.ContentText || c.SummaryTruncated {
		return
	}
	text := b.Text
	if room := maxSummary - len(c.Summary); len(text) > room {
		text = strings.ToValidUTF8(text[:room], "")
		c.SummaryTruncated = true
	}
	c.Summary += text
}

// compactionRecords copies the turn's compactions, a summary cut at
// maxSummary redacted with red as the start of a longer text
// (redact.Redactor.CutEnd): what is left of a secret the cut went through
// is [REDACTED] too. The caller holds the session's lock.
func (t *turnState) compactionRecords(red *redact.Redactor) []report.Compaction {
	return mapped(t.compactions, func(c *report.Compaction) report.Compaction {
		r := *c
		if r.SummaryTruncated {
			r.Summary = red.CutEnd(r.Summary)
		}
		return r
	})
}

// noticeRank is where a severity stands among scenario.NoticeLevels; one
// ACP does not define counts as error.
func noticeRank(severity string) int {
	if i := slices.Index(scenario.NoticeLevels, severity); i >= 0 {
		return i
	}
	return len(scenario.NoticeLevels) - 1
}

// checkNotices checks expect.notices against notices; scope ("the turn",
// "the scenario") names them in the message.
func checkNotices(red *redact.Redactor, e *scenario.NoticesExpect, notices []report.Notice, scope string) []string {
	if e.Max == "" {
		return nil
	}
	var over []string
	for _, n := range notices {
		if noticeRank(n.Severity) <= noticeRank(e.Max) {
			continue
		}
		s := n.Severity + " " + quoted(red, n.Title)
		if !slices.Contains(scenario.NoticeLevels, n.Severity) {
			s = fmt.Sprintf("%q (taken as error) %s", n.Severity, quoted(red, n.Title))
		}
		if n.Description != "" {
			s += " (" + shorten(red, n.Description, 120) + ")"
		}
		over = append(over, s)
	}
	if len(over) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: notices.max %s: the agent reported %s above %s in %s: %s",
		e.MaxPos, e.Max, plural(len(over), "notice", "notices"), e.Max, scope, listed(over))}
}
