// Package workspace makes the per-attempt copies scenarios run in: a fresh
// directory for each scenario × agent × attempt, made from a fixture
// directory or checked out from a git repository, and records what the
// agent changed there.
//
// Create makes a workspace; Check checks a Spec as Create does before it
// makes anything, and makes nothing; Snapshot sets the baseline that Changes and Diff
// compare with (Create takes one itself); Diff gives `git diff` of a git
// workspace against that baseline (leaving out files the agent made too
// big for git to read at little cost); RepoChanges says whether the source
// repository's config, hooks or attributes changed since; Remove deletes it.
// Rebase maps paths inside the source (session cwd, client roots, rule
// paths) into the workspace.
//
// A copy (Spec.From) copies regular files with their content, permission
// bits and modification times, directories with their permission bits and
// times, and symlinks as symlinks with the same target text (never followed).
// The source is read through an os.Root, each file checked once open to be
// the one listed: a file or directory swapped for a symlink while it is
// copied (by an agent writing in the source) fails the copy.
// Sockets, FIFOs and devices are skipped without an error (Workspace.LeftOut
// lists them, for the checks to say why one is missing); hard links become
// separate files. A .git directory or file in the source is copied too. The
// workspace's root directory keeps the private mode os.MkdirTemp gives it
// (0700), whatever the source root's mode.
//
// A git workspace (Spec.Git) is a detached `git worktree` of the repository,
// sharing its object store, refs and config; when the worktree cannot be
// added, and always for a bare repository (often someone's remote), it is a
// local clone (`git clone --no-hardlinks --separate-git-dir`) with the
// commit checked out detached, its git directory in a private directory
// beside Dir (Dir + ".git", mode 0700, removed with it), which every git
// workspace has. Either way the git directory lies outside Dir, and
// Dir/.git is a file that points to it. Submodules are not initialised.
// acprun's own git commands never change the source's index, HEAD or
// branches and never run its hooks, but an agent working in a worktree can
// reach the repository's refs and config through git, as any worktree can:
// RepoChanges tells when it changed the config, hooks or attributes, which
// acprun leaves as they are.
//
// Once the workspace is made, acprun runs git only with Dir as the work
// tree given explicitly (never the git directory Dir/.git names now) and
// never in a repository the agent made inside Dir. The baseline and the
// diff run in a git directory of acprun's own in the private directory,
// which reaches the source's objects as an alternate and stores its own,
// with a temporary index, and with no config but its own (not the system's,
// the user's or the repository's, nor attributes but Dir's): no filter,
// diff or merge driver, textconv, external diff, fsmonitor or hook is
// defined there, so whatever the agent wrote (a config through `git
// config`, attributes, a .git file) runs nothing.
//
// Changes compares regular files (by type, permission bits, size and SHA-256
// of the content), symlinks (by target) and other non-directories (by type
// and mode; never opened). Directories are not entries: a new empty
// directory is no change. The .git entry at the root is ignored. A file the
// agent made unreadable counts as modified (created, when it is new), and
// the files below a directory made unreadable count as modified.
//
// git runs with the inherited environment minus the variables that would
// point it elsewhere (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, …) when acprun
// itself runs inside a git hook, with GIT_TERMINAL_PROMPT=0 and no pager or
// editor. The user's config (global and system) and the source repository's
// apply to making and removing the workspace (safe.directory, LFS filters)
// but not to the baseline and the diff, which compare the files as they
// are (an LFS file as its content, not its pointer) and fix the settings
// that would change the diff's text (prefixes, path quoting, colour,
// context, algorithm, renames, order file, the global excludes file), so
// the same changes give the same diff on every machine. Each git command
// is started and supervised as every process acprun starts for a
// scenario (see package proc): in a process group of its own, killed with
// what it started when it exits or ctx ends, and with a mark of its own
// inside Spec.Mark (see package reap), which the run's guard finds when
// acprun is killed.
package workspace
