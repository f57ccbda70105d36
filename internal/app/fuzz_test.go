package app_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/app"
)

// FuzzTalosconfig reads arbitrary bytes as a talosconfig: no panic, and an error that never
// quotes the file (it holds a private key).
func FuzzTalosconfig(f *testing.F) {
	f.Add([]byte("context: lab\ncontexts:\n  lab:\n    endpoints: [10.0.0.1]\n    ca: AAAA\n    crt: BBBB\n    key: S0VZS0VZS0VZS0VZ\n"))
	f.Add([]byte("contexts: [1, 2]\n"))
	f.Add([]byte("{"))

	f.Fuzz(func(t *testing.T, data []byte) {
		d := &app.Deps{
			Outside: app.Outside{
				Getenv:   func(string) string { return "" },
				ReadFile: func(string) ([]byte, error) { return data, nil },
			},
		}

		_, err := app.LoadTalosconfig(d, "talosconfig")
		if err == nil {
			return
		}

		if s := strings.TrimSpace(string(data)); len(s) >= 12 && strings.Contains(err.Error(), s) {
			t.Errorf("the error quotes the file: %v", err)
		}
	})
}
