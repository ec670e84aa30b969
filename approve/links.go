package approve

// LinkFree reports whether p gives req the same verdict wherever the
// symbolic links on its paths lead (whatever req.Resolve finds, or would
// have found when the files were there), and why, as a clause: "the
// request touches no path". ok is false when following links could change
// the verdict. The verdict is link-free when:
//   - the request touches no path;
//   - a deny rule matches it on its paths as written (req.Resolve unset),
//     or without looking at a path: a deny rule matches a path whether it
//     is given or found by following links, so following them can only
//     add deny matches, and a deny beats every allow;
//   - every rule with a path matcher fails on another of its matchers
//     (kind, tool, title, input, and for a deny rule command), so no
//     rule's outcome depends on the paths.
//
// Otherwise a link could add a path or a cwd that makes a deny rule
// match, an allow rule fail, or a relative allow pattern match.
func (p *Policy) LinkFree(req Request) (why string, ok bool) {
	req.Resolve = nil // the paths as written
	c := newCall(req)
	if len(c.paths) == 0 {
		return "the request touches no path", true
	}
	if d, _, _ := p.evaluate(req, false); d.RuleList == ListDeny {
		return d.Reason + " without following a link, and a deny rule beats every allow", true
	}
	if p == nil {
		return "there is no rule", true // evaluate denies by the default
	}
	anyPath := false
	for _, l := range []struct {
		name  string
		rules []Rule
	}{{ListDeny, p.Deny}, {ListAllow, p.Allow}} {
		for _, r := range l.rules {
			if len(r.Path) == 0 {
				continue
			}
			anyPath = true
			r.Path = nil
			if !hasMatcher(r) || evalRule(l.name, r, c).ok {
				return "", false
			}
		}
	}
	if !anyPath {
		return "no rule has a path matcher", true
	}
	return "every rule with a path matcher fails on another of its matchers", true
}
