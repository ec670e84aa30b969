package runner

import (
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
// where acprun's changes do not count as the agent's. Without a workspace
// the user's own tree is left alone, and the results say that the agent was
// not made to ask.
func (r *scenarioRun) enforce() error {
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
	if err := mergeSettings(path, e.ProjectSettings); err != nil {
		// Named as in the session cwd: the copy's path is a temporary one.
		return fmt.Errorf("permissions.enforce: %s's settings %s: %w", r.sc.Agent.Name, e.ProjectSettingsFile, err)
	}
	if rel, err := filepath.Rel(r.ws.Dir, path); err == nil {
		r.ws.Exclude(filepath.ToSlash(rel))
	}
	return nil
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

// mergeSettings merges the JSON object add into the settings file at path:
// objects key by key, arrays as the union of their values (the file's
// first), other values replaced by add's. A missing file is made. The file
// is read as an input (inputfile): one that is not a regular file (a FIFO,
// a symlink to a device) or is larger than maxSettingsBytes is an error,
// said without the path, which the caller names.
func mergeSettings(path, add string) error {
	var extra map[string]any
	if err := json.Unmarshal([]byte(add), &extra); err != nil {
		return err
	}
	have := map[string]any{}
	data, err := inputfile.Read(path, maxSettingsBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return inputfile.Bare(err)
	default:
		if err := json.Unmarshal(data, &have); err != nil {
			return fmt.Errorf("not a JSON object, so the settings could not be added to it: %w", err)
		}
	}
	out, err := json.MarshalIndent(mergeJSON(have, extra), "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o644)
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
