// Package kv parses the list values of settings and flags: "a,b,c" and
// "name=/dir:/dir2,name2=/dir3" (Format_Roots, Tenant_Roots).
package kv

import (
	"fmt"
	"path/filepath"
	"strings"
)

// List splits a comma-separated list, trimming spaces and dropping empty
// items.
func List(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Dirs parses "name=/dir:/dir2,name2=/dir3" into each name's cleaned
// directories, in order. what names the left side in the error
// ("format", "tenant").
func Dirs(s, what string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, part := range List(s) {
		name, dirs, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.TrimSpace(dirs) == "" {
			return nil, fmt.Errorf("%q is not %s=/dir[:/dir2]", part, what)
		}
		for _, d := range strings.Split(dirs, ":") {
			if d = strings.TrimSpace(d); d != "" {
				out[name] = append(out[name], filepath.Clean(d))
			}
		}
	}
	return out, nil
}
