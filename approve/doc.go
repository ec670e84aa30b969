// Package approve decides, with no human present, how to answer an ACP
// agent's session/request_permission: a Policy of allow and deny rules turns
// a Request into a Decision. The package is pure: it reads no files, knows
// no YAML and speaks no ACP; the scenario package builds Policies and the
// runner builds Requests.
//
// In a scenario file a policy reads:
//
//	permissions:
//	  default: deny              # when no rule matches
//	  allow:
//	    - kind: [read, search]
//	    - kind: edit
//	      path: "src/**"         # every path the call touches must match
//	    - kind: execute
//	      command: "go test *"   # every simple command must be allowed
//	      always: true           # prefer the agent's allow_always option
//	  deny:
//	    - command: ["git push *", "curl *"]
//	    - tool: "mcp__github__*" # the tool's name (ToolCall.name)
//	    - path: ["**/.env", "/etc/**"]
//	    - title: "*delete*"
//	    - input: {url: "^https?://"}
//
// # Evaluation
//
// The matchers of a rule are ANDed and the values inside one matcher are
// ORed. Any matching deny rule beats every allow rule; then an allow rule
// decides; then the policy's Default (deny unless it is Allow). The
// Decision records the first matching rule of the deciding list.
//
//   - kind: the tool call's kind equals one of the values; a call without a
//     kind is "other", the schema's default.
//
//   - tool: a case-insensitive glob on the tool's name (ToolCall.name, the
//     permission request's own or, when it gives none, the one its tool
//     call was announced with), as the title's: "Bash", "mcp__github__*".
//     A call without a name never matches.
//
//   - title: a case-insensitive glob on the title ('*' any run, '?' one
//     character).
//
//   - command: the call's command line (Decision.Commands) is split into simple
//     commands (SplitCommands), as each of bash and sh (dash, or bash in
//     POSIX mode) would split it, its line continuations removed where the
//     shells remove them (in "…" and $(…) too). A deny rule matches when any of them
//     matches a pattern. An allow holds only when every one of them is
//     allowed by some allow rule whose other matchers hold too; different
//     commands may be allowed by different rules. In a pattern '*' matches
//     any run of characters (blanks and slashes too); without '*' the
//     pattern must equal the whole command. Patterns and commands have
//     their blanks trimmed and runs of unquoted blanks collapsed.
//     Redirections are part of a command ("cat *" matches `cat a > b`), and
//     their targets are paths the call touches (see path).
//
//     An allow pattern allows a command it matches as written. Otherwise it
//     sees the command without its leading VAR=value assignments and
//     without an `env` that only sets variables, and a shell wrapper (`bash
//     -lc 'SCRIPT'`, `sh -c "…"`, any sh, bash, zsh, dash or ksh with -c,
//     `eval …`, or a trap's action, which runs later), written as a string
//     or as an argv, is replaced by the commands of its script (a zsh or
//     ksh script only when it is plain, see zshWhy; else, like a wrapper
//     with an option before its script that is not known, it is
//     unresolvable) (each with the wrapper's redirections), nested wrappers
//     too: every one of them must be allowed. So "go test *" allows `FOO=1
//     go test ./...`, `env GOOS=linux go test ./...` and `bash -lc 'go test
//     ./...'`, but not `bash -lc 'go test ./... && curl x'`, `sudo go test
//     ./...` or `env -i go test ./...` (sudo and env with options are
//     commands of their own).
//
//     Deny patterns see the command as written and the same forms, and
//     more: each leading assignment on its own (NAME=value, also after env
//     or sudo, so "LD_PRELOAD=*" denies `A=1 LD_PRELOAD=x make` and `env
//     LD_PRELOAD=x make`), the command without quoting as the shells remove
//     it (`"r"m` is rm), without its redirections and without the program's
//     directory (/bin/rm is rm), and the command a wrapper runs, without
//     the wrapper, its options and their arguments and its operands: sudo,
//     doas, env, exec, nice, nohup, command, builtin, time, coproc, setsid,
//     stdbuf, ionice, busybox, toybox, unshare, nsenter, runuser, strace,
//     ltrace, valgrind, fakeroot, xvfb-run, dbus-run-session, unbuffer,
//     firejail, systemd-run, catchsegv, torsocks, chroot NEWROOT, timeout
//     DURATION, chrt PRIORITY, taskset MASK, flock FILE, xargs and parallel
//     (also with "…" for the arguments they add; parallel's words also
//     joined as a shell line), find's -exec, -execdir, -ok and -okdir, and
//     the shell lines of su -c, runuser -c, script -c, watch, flock -c, env
//     -S and trap, and of git -c NAME=VALUE for a setting whose value git
//     runs (core.pager, alias.NAME of "!LINE", diff.external…; from a
//     variable, --config-env, it is unresolvable). An option a wrapper is not known to have is read both
//     with and without an argument. A command with more forms than are
//     checked (256, or 1 MiB of them), or shell lines nested deeper than 4,
//     is taken to match every deny command pattern. That makes deny rules
//     harder to dodge, but they remain a tripwire: an allow list is the
//     real gate.
//
//     A command in which bash runs a variable's value as code is
//     unresolvable: an indirection ${!x} (x may hold a[$(cmd)]; not the
//     listings ${!prefix*}, ${!a[@]}), a prompt expansion ${x@P}, a shell
//     line with $'…' or $"…" (bash -c $'…': dash reads a $ and a plain
//     quote, so another script), a brace expansion in the command word
//     ({rm,x} is rm x to bash), any other expansion there, whose value
//     names the program ($E rm x and ${E}rm x are rm x when E is empty;
//     $(…), `…`, <(…), a glob such as /bin/r?, and an unquoted one in the
//     directory beside other text, rm$IFS-rf$IFS/; not one quoted or a
//     whole segment of the directory, $HOME/bin/tool, nor in the text of
//     arithmetic, which SplitCommands returns as commands), a name bound to
//     another program (alias NAME=VALUE, hash -p, enable -f), a shell
//     that reads its script from its standard input or another stream (…
//     | sh, bash <<< "…", sh -s, bash <(…), source <(…)), or that a
//     wrapper starts with no command (sudo -s, su, unshare, chroot DIR,
//     script FILE), or setting
//     BASH_ENV, ENV, SHELLOPTS, BASHOPTS, PS4, PROMPT_COMMAND, LD_PRELOAD,
//     LD_AUDIT, LD_LIBRARY_PATH or BASH_FUNC_* (before the command, after
//     env, in export and the like). It matches every deny command pattern
//     and no allow one. An array subscript and a substring's offset and
//     length (${a[i]}, ${x:i:n}) are arithmetic, a command as $((…))'s body
//     is (see SplitCommands).
//
//   - path: the paths the call touches (Decision.Paths), cleaned and made
//     absolute: its locations, diffs and path fields of rawInput, and the
//     files its commands redirect to or from (`> out`, `2>> log`, `< in`,
//     `&> x`; not 2>&1, here-documents or /dev/null), so `go test ./... >
//     /etc/passwd` touches /etc/passwd. With Request.Resolve (the runner
//     sets it) a path is also seen as the OS resolves it: a path through
//     a symbolic link is two paths, as given and resolved. A path the
//     engine cannot know is unresolvable (PathSource.Unresolvable): a
//     path that starts with ~ (~/x, ~user/x), wherever the call gives it,
//     a redirection target that needs another expansion ($HOME/x, `…`, a
//     glob), a relative one in a line that changes the directory (cd,
//     pushd, popd, source, .) or a path whose links cannot be followed.
//     Redirection targets are relative to rawInput.workdir or
//     rawInput.cwd when the call gives one. It matches every
//     deny path pattern and no allow one (fail closed). An allow rule
//     needs every path to match; a deny rule one.
//     A call without paths never matches a path rule. Relative patterns
//     are relative to the session cwd (as given and resolved) and never
//     match a path outside it ("**" does not match "../x"), except in a
//     deny rule a pattern whose first segment is "**" ("**/.env", "**"),
//     which matches at any depth of any path: "**/.env" denies
//     /srv/app/.env too, while an allow of "**" still allows only the
//     cwd's tree. Absolute patterns match absolute paths. "**" as a
//     whole segment crosses directories (zero included, so "**/.env"
//     matches ".env" in the cwd), '*' does not cross '/', and a class
//     negates with '^' ([^.]; CheckPathGlob refuses the shell's [!.],
//     which path.Match reads as "! or ."). A pattern ending in '/' is
//     refused too: cleaned, it would match the directory alone.
//
//   - input: each dotted rawInput path's value must match its RE2 regex
//     (unanchored): a string directly, a number or bool by its JSON text,
//     an array when any element does; a missing field does not match.
//
// A rule with a bad regex or malformed path pattern (which Rule.Validate
// reports) never panics: that part of it matches nothing.
//
// # Options
//
// Decide selects the option to answer with by kind: allow_once for an
// allow (allow_always first when the rules with Always allow the call on
// their own, each part of a shell line by one of them), falling back to the
// other allow kind; reject_once for a deny, falling back to reject_always.
// When the agent offers no option of the needed kind the Decision is
// Cancelled. Option ids are only ever copied from the request, and never
// one that an option of another verdict (or of an unknown kind) shares:
// the agent could take the answer for that option. Nor is one whose id is
// one of Request.UnaskedModes, or that Request.ModeOptions maps to one,
// ever selected: it would switch the agent into a mode in which it no
// longer asks.
package approve
