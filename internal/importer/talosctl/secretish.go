package talosctl

import (
	"regexp"
	"strings"
	"sync"
)

// secretKey matches the names of fields that hold secrets outside the bundle (a disk
// encryption passphrase, a WireGuard private key, a registry password...).
var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(passphrase|password|privatekey|secret|token|^key$|auth)`)
})

// secretPaths lists the paths under a patch operation whose field names say they hold a
// secret: those values are now in a patch file in clear.
func secretPaths(o op) []string {
	path, _ := o["path"].(string)

	var out []string

	if secretKey().MatchString(last(path)) {
		out = append(out, path)
	}

	walk(o["value"], path, func(p string) { out = append(out, p) })

	return out
}

func walk(v any, path string, found func(string)) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			p := path + "/" + escape(k)
			if secretKey().MatchString(k) {
				found(p)

				continue
			}

			walk(c, p, found)
		}
	case []any:
		for _, c := range t {
			walk(c, path+"/-", found)
		}
	}
}

func last(path string) string {
	return path[strings.LastIndex(path, "/")+1:]
}
