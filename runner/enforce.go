package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/inputfile"
)

// enforce writes the files of the agent's Enforcement (permissions.enforce;
// its args and env are in the scenario already): a settings file named by
// an environment variable goes in the run's private directory, and
// project settings are merged into the session cwd of a workspace copy,
// whose baseline is then taken again: acprun's merge is not the agent's
// change, and whatever the agent does to the file afterwards (rewrite it,
// delete it) is. Without a workspace the user's own tree is left alone,
// and the results say that the agent was not made to ask.
func (r *scenarioRun) enforce(ctx context.Context) error {
	e := r.sc.Agent.Enforcement
	if e == nil {
		return nil
	}
	if e.SettingsEnv != "" {
		path, err := settingsFile(r.opts.spill, e.Settings)
		if err != nil {
			return fmt.Errorf("permissions.enforce: %s's settings: %w", r.sc.Agent.Name, err)
		}
		local := *r.sc
		local.Agent.Env = maps.Clone(local.Agent.Env)
		if local.Agent.Env == nil {
			local.Agent.Env = map[string]string{}
		}
		local.Agent.Env[e.SettingsEnv] = path
		r.sc = &local
	}
	if e.ProjectSettingsFile == "" {
		return nil
	}
	if r.ws == nil {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("permissions.enforce: %s asks before it acts only with its settings in the session's %s, "+
			"which acprun writes only in a workspace copy, never in your own tree: it may act without asking. "+
			"Give the scenario a workspace, or set permissions.enforce: strict (a turn whose tool calls ran unasked fails) or false",
			r.sc.Agent.Name, e.ProjectSettingsFile))
		return nil
	}
	path := filepath.Join(r.sc.Agent.Cwd, filepath.FromSlash(e.ProjectSettingsFile))
	rel, err := filepath.Rel(r.ws.Dir, path)
	if err == nil {
		err = mergeSettings(r.ws.Dir, rel, e.ProjectSettings)
	}
	if err != nil {
		// Named as in the session cwd: the copy's path is a temporary one.
		return fmt.Errorf("permissions.enforce: %s's settings %s: %w", r.sc.Agent.Name, e.ProjectSettingsFile, err)
	}
	return r.ws.Snapshot(ctx)
}

// settingsFile writes content into dir, in a file named after it (made
// once, atomically, and shared by the scenarios of the run), and returns
// its path.
func settingsFile(dir, content string) (string, error) {
	if dir == "" {
		return "", errors.New("acprun has no private directory for it")
	}
	sum := sha256.Sum256([]byte(content))
	path := filepath.Join(dir, "settings-"+hex.EncodeToString(sum[:8])+".json")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	f, err := os.CreateTemp(dir, "settings-*.tmp")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path) // whole, even while another scenario writes it too
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return path, nil
}

// maxSettingsBytes bounds the project settings file that mergeSettings
// reads: a settings file is a few lines.
const maxSettingsBytes = 4 << 20

// mergeSettings merges the JSON object add into the settings file name
// of the workspace copy dir: objects key by key, arrays as the union of
// their values (the file's first), other values replaced by add's. A
// missing file is made. The file is read and written inside dir (an
// os.Root): the copy is of a tree acprun does not trust, and a symbolic
// link there (.claude/settings.json -> ~/.bashrc, or .claude -> ~) must
// not have acprun read or write outside it; such a link is an error. The
// file is read as an input (inputfile): one that is not a regular file (a
// FIFO, a symlink to a device) or is larger than maxSettingsBytes is an
// error, said without the path, which the caller names.
func mergeSettings(dir, name, add string) error {
	var extra map[string]any
	if err := json.Unmarshal([]byte(add), &extra); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	have := map[string]any{}
	data, err := inputfile.ReadIn(root, name, name, maxSettingsBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return outOfCopy(inputfile.Bare(err))
	default:
		if err := json.Unmarshal(data, &have); err != nil {
			if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
				return fmt.Errorf("holds a JSON %s, not an object, so the settings could not be added to it", te.Value)
			}
			return fmt.Errorf("not a JSON object, so the settings could not be added to it: %w", err)
		}
	}
	out, err := json.MarshalIndent(mergeJSON(have, extra), "", "  ")
	if err != nil {
		return err
	}
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return outOfCopy(err)
	}
	return outOfCopy(root.WriteFile(name, append(out, '\n'), 0o644))
}

// outOfCopy says os.Root's refusal of a path that leads out of it in the
// user's terms; other errors are returned as they are.
func outOfCopy(err error) error {
	if err = innerError(err); err != nil && err.Error() == "path escapes from parent" { // os.Root's error, not exported
		return errors.New("a symbolic link leads out of the workspace copy, and acprun does not follow it: remove the link from the workspace's source")
	}
	return err
}

// mergeJSON merges b into a (see mergeSettings).
func mergeJSON(a, b map[string]any) map[string]any {
	for k, bv := range b {
		switch bv := bv.(type) {
		case map[string]any:
			if av, ok := a[k].(map[string]any); ok {
				a[k] = mergeJSON(av, bv)
				continue
			}
		case []any:
			if av, ok := a[k].([]any); ok {
				for _, v := range bv {
					if !slices.Contains(av, v) {
						av = append(av, v)
					}
				}
				a[k] = av
				continue
			}
		}
		a[k] = bv
	}
	return a
}
