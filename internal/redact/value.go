package redact

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
)

// maxDepth bounds how deep Value walks; deeper values are cleared.
const maxDepth = 10000

// Value is Redactor.Value of the secrets of r.
func (r *table) Value(v any) {
	if r.empty() || v == nil {
		return
	}
	w := walker{r: r}
	w.walk(reflect.ValueOf(v), 0)
}

// walker is one walk of Value.
type walker struct {
	r     *table
	seen  map[visit]bool
	dirty bool // the walk changed something
}

// visit identifies a pointer, map or slice that was walked.
type visit struct {
	ptr uintptr
	typ reflect.Type
	len int
}

// first reports whether the pointer, map or slice v is walked for the
// first time.
func (w *walker) first(v reflect.Value) bool {
	k := visit{ptr: v.Pointer(), typ: v.Type()}
	if v.Kind() == reflect.Slice {
		k.len = v.Len()
	}
	if w.seen == nil {
		w.seen = make(map[visit]bool)
	}
	if w.seen[k] {
		return false
	}
	w.seen[k] = true
	return true
}

// scalar reports whether values of kind k hold no text.
func scalar(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128,
		reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	}
	return false
}

func (w *walker) walk(v reflect.Value, depth int) {
	if depth > maxDepth {
		if v.CanSet() && !v.IsZero() {
			v.SetZero()
			w.dirty = true
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		if !v.CanSet() {
			return
		}
		if s := v.String(); s != "" {
			if red := w.r.String(s); red != s {
				v.SetString(red)
				w.dirty = true
			}
		}
	case reflect.Pointer:
		if v.IsNil() || !w.first(v) {
			return
		}
		w.walk(v.Elem(), depth+1)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if scalar(e.Kind()) {
			return
		}
		// What an interface holds cannot be changed in place: walk a copy
		// and put it back.
		if cp, changed := w.walkCopy(e, depth+1); changed && v.CanSet() {
			v.Set(cp)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				w.walk(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if v.IsNil() || v.Len() == 0 {
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.CanSet() {
				if red, changed := w.r.json(v.Bytes()); changed {
					v.SetBytes(red)
					w.dirty = true
				}
			}
			return
		}
		if scalar(v.Type().Elem().Kind()) || !w.first(v) {
			return
		}
		fallthrough // its elements are walked as an array's
	case reflect.Array:
		if scalar(v.Type().Elem().Kind()) {
			return
		}
		for i := range v.Len() {
			w.walk(v.Index(i), depth+1)
		}
	case reflect.Map:
		w.walkMap(v, depth)
	}
}

// walkMap redacts the keys and values of map m.
func (w *walker) walkMap(m reflect.Value, depth int) {
	if m.IsNil() || m.Len() == 0 || !w.first(m) {
		return
	}
	t := m.Type()
	keysScalar, valsScalar := scalar(t.Key().Kind()), scalar(t.Elem().Kind())
	if keysScalar && valsScalar {
		return
	}
	type entry struct{ old, key, val reflect.Value }
	var renamed []entry
	for _, k := range m.MapKeys() {
		val := m.MapIndex(k)
		if !valsScalar {
			// Map values cannot be changed in place either.
			if cp, changed := w.walkCopy(val, depth+1); changed {
				val = cp
				m.SetMapIndex(k, val)
			}
		}
		if keysScalar {
			continue
		}
		if nk, changed := w.key(k, depth); changed {
			renamed = append(renamed, entry{k, nk, val})
		}
	}
	if len(renamed) == 0 {
		return
	}
	w.dirty = true
	for _, e := range renamed {
		m.SetMapIndex(e.old, reflect.Value{})
	}
	// Name the keys in the order of the original keys, so the outcome
	// does not depend on the map's order.
	slices.SortFunc(renamed, func(a, b entry) int { return compareKeys(a.old, b.old) })
	nm := namer{r: w.r}
	for _, e := range renamed {
		k := e.key
		// String leaves no secret, so only a key already there is in the way.
		if m.MapIndex(k).IsValid() {
			var ok bool
			if k, ok = suffixed(&nm, m, e.key); !ok {
				continue // the entry with the first original key is kept
			}
		}
		m.SetMapIndex(k, e.val)
	}
}

// key returns map key k redacted, and whether that changed it.
func (w *walker) key(k reflect.Value, depth int) (reflect.Value, bool) {
	if k.Kind() == reflect.String {
		s := k.String()
		red := w.r.String(s)
		if red == s {
			return k, false
		}
		return reflect.ValueOf(red).Convert(k.Type()), true
	}
	return w.walkCopy(k, depth+1)
}

// walkCopy walks a copy of v, a value that cannot be changed in place,
// and returns it, and whether the walk changed it.
func (w *walker) walkCopy(v reflect.Value, depth int) (reflect.Value, bool) {
	cp := reflect.New(v.Type()).Elem()
	cp.Set(v)
	prev := w.dirty
	w.dirty = false
	w.walk(cp, depth)
	changed := w.dirty
	w.dirty = prev || changed
	return cp, changed
}

// suffixed returns string key k with the first suffix "#2", "#3"… that is
// free in m and forms no secret. It reports false for keys that are not
// strings.
func suffixed(nm *namer, m, k reflect.Value) (reflect.Value, bool) {
	var str reflect.Value // the string in k
	switch {
	case k.Kind() == reflect.String:
		str = k
	case k.Kind() == reflect.Interface && !k.IsNil() && k.Elem().Kind() == reflect.String:
		str = k.Elem()
	default:
		return reflect.Value{}, false
	}
	key := func(name string) reflect.Value {
		nk := reflect.ValueOf(name).Convert(str.Type())
		if k.Kind() == reflect.Interface {
			iv := reflect.New(k.Type()).Elem()
			iv.Set(nk)
			nk = iv
		}
		return nk
	}
	name := nm.free(str.Type(), str.String(), func(name string) bool { return m.MapIndex(key(name)).IsValid() })
	return key(name), true
}

// compareKeys orders map keys: strings as strings, others by %#v.
func compareKeys(a, b reflect.Value) int {
	if a.Kind() == reflect.String {
		return cmp.Compare(a.String(), b.String())
	}
	return cmp.Compare(fmt.Sprintf("%#v", a.Interface()), fmt.Sprintf("%#v", b.Interface()))
}
