package sops

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"filippo.io/age"
)

func recipientsOf(t *testing.T, ids []age.Identity) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		x, ok := id.(*age.X25519Identity)
		if !ok {
			t.Fatalf("identity of type %T, want *age.X25519Identity", id)
		}
		out = append(out, x.Recipient().String())
	}
	return out
}

func TestIdentitiesFromEnv(t *testing.T) {
	key1 := mustRead(t, keyFile1)
	key2 := mustRead(t, keyFile2)
	r1 := recipientsOf(t, identitiesFrom(t, keyFile1))[0]
	r2 := recipientsOf(t, identitiesFrom(t, keyFile2))[0]

	tests := []struct {
		name  string
		env   map[string]string
		files map[string]string
		want  []string // recipients of the identities, in order
	}{
		{
			name: "nothing set and no default key file gives no identities",
			env:  map[string]string{"HOME": "/home/op"},
		},
		{
			name: "no environment at all gives no identities",
		},
		{
			name: "SOPS_AGE_KEY holds the key text",
			env:  map[string]string{"SOPS_AGE_KEY": key1},
			want: []string{r1},
		},
		{
			name: "SOPS_AGE_KEY holds several keys between comments and blank lines",
			env:  map[string]string{"SOPS_AGE_KEY": "# first\n" + key1 + "\n\n# second\n" + key2},
			want: []string{r1, r2},
		},
		{
			name: "SOPS_AGE_KEY with CRLF line ends and indentation",
			env:  map[string]string{"SOPS_AGE_KEY": strings.ReplaceAll("  "+keyLine(t, key1)+"\n"+keyLine(t, key2)+"\n", "\n", "\r\n")},
			want: []string{r1, r2},
		},
		{
			name:  "SOPS_AGE_KEY_FILE names the key file",
			env:   map[string]string{"SOPS_AGE_KEY_FILE": "/keys/ops.txt"},
			files: map[string]string{"/keys/ops.txt": key2},
			want:  []string{r2},
		},
		{
			name:  "SOPS_AGE_KEY and SOPS_AGE_KEY_FILE combine",
			env:   map[string]string{"SOPS_AGE_KEY": key1, "SOPS_AGE_KEY_FILE": "/keys/ops.txt"},
			files: map[string]string{"/keys/ops.txt": key2},
			want:  []string{r1, r2},
		},
		{
			name:  "default key file under XDG_CONFIG_HOME",
			env:   map[string]string{"XDG_CONFIG_HOME": "/xdg", "HOME": "/home/op"},
			files: map[string]string{"/xdg/sops/age/keys.txt": key1, "/home/op/.config/sops/age/keys.txt": key2},
			want:  []string{r1},
		},
		{
			name:  "relative XDG_CONFIG_HOME disables the default key file, as in sops",
			env:   map[string]string{"XDG_CONFIG_HOME": "xdg", "HOME": "/home/op"},
			files: map[string]string{"xdg/sops/age/keys.txt": key1, "/home/op/.config/sops/age/keys.txt": key2},
		},
		{
			name:  "default key file under HOME when XDG_CONFIG_HOME is unset",
			env:   map[string]string{"HOME": "/home/op"},
			files: map[string]string{"/home/op/.config/sops/age/keys.txt": key2},
			want:  []string{r2},
		},
		{
			name:  "default key file adds to SOPS_AGE_KEY, as in sops",
			env:   map[string]string{"SOPS_AGE_KEY": key1, "HOME": "/home/op"},
			files: map[string]string{"/home/op/.config/sops/age/keys.txt": key2},
			want:  []string{r1, r2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, err := IdentitiesFromEnv(fakeEnv(t, tt.env), fakeFS(tt.files))
			if err != nil {
				t.Fatalf("IdentitiesFromEnv: %v", err)
			}
			if tt.want == nil && ids != nil {
				t.Fatalf("got %d identities, want nil", len(ids))
			}
			if got := recipientsOf(t, ids); !slices.Equal(got, tt.want) {
				t.Errorf("recipients %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIdentitiesFromEnv_Errors(t *testing.T) {
	secretLine := keyLine(t, mustRead(t, keyFile1))
	tests := []struct {
		name       string
		env        map[string]string
		readFile   func(string) ([]byte, error)
		wantSource string
		wantLine   int
	}{
		{
			name:       "malformed key names the variable and line",
			env:        map[string]string{"SOPS_AGE_KEY": "# comment\n" + secretLine[:len(secretLine)-3] + "xyz"},
			wantSource: "SOPS_AGE_KEY",
			wantLine:   2,
		},
		{
			name:       "text that is not a key at all",
			env:        map[string]string{"SOPS_AGE_KEY": "hunter2"},
			wantSource: "SOPS_AGE_KEY",
			wantLine:   1,
		},
		{
			name:       "age plugin identities are unsupported",
			env:        map[string]string{"SOPS_AGE_KEY": "AGE-PLUGIN-YUBIKEY-1QQQQQQ"},
			wantSource: "SOPS_AGE_KEY",
			wantLine:   1,
		},
		{
			name:       "passphrase-protected key file is unsupported",
			env:        map[string]string{"SOPS_AGE_KEY_FILE": "/keys/locked.age"},
			readFile:   fakeFS(map[string]string{"/keys/locked.age": "-----BEGIN AGE ENCRYPTED FILE-----\nYWdl\n-----END AGE ENCRYPTED FILE-----\n"}),
			wantSource: "SOPS_AGE_KEY_FILE /keys/locked.age",
		},
		{
			name:       "a SOPS_AGE_KEY_FILE that holds no key names the variable and line",
			env:        map[string]string{"SOPS_AGE_KEY_FILE": "/etc/hostname"},
			readFile:   fakeFS(map[string]string{"/etc/hostname": "lab-laptop\n"}),
			wantSource: "SOPS_AGE_KEY_FILE /etc/hostname",
			wantLine:   1,
		},
		{
			name:       "missing SOPS_AGE_KEY_FILE is an error",
			env:        map[string]string{"SOPS_AGE_KEY_FILE": "/keys/missing.txt"},
			readFile:   fakeFS(nil),
			wantSource: "SOPS_AGE_KEY_FILE /keys/missing.txt",
		},
		{
			name: "unreadable default key file is an error",
			env:  map[string]string{"HOME": "/home/op"},
			readFile: func(string) ([]byte, error) {
				return nil, &fs.PathError{Op: "open", Path: "/home/op/.config/sops/age/keys.txt", Err: fs.ErrPermission}
			},
			wantSource: "/home/op/.config/sops/age/keys.txt",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readFile := tt.readFile
			if readFile == nil {
				readFile = fakeFS(nil)
			}
			ids, err := IdentitiesFromEnv(fakeEnv(t, tt.env), readFile)
			var ie *IdentityError
			if !errors.As(err, &ie) {
				t.Fatalf("got (%d identities, %v), want an *IdentityError", len(ids), err)
			}
			if ie.Source != tt.wantSource || ie.Line != tt.wantLine {
				t.Errorf("error from %q line %d, want %q line %d", ie.Source, ie.Line, tt.wantSource, tt.wantLine)
			}
			for _, secret := range []string{secretLine[:40], "hunter2", "YUBIKEY-1QQQQQQ"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error message shows key text: %q", err)
				}
			}
		})
	}
}

func TestIdentitiesFromEnv_DecryptsFixture(t *testing.T) {
	ids, err := IdentitiesFromEnv(fakeEnv(t, map[string]string{"SOPS_AGE_KEY": mustRead(t, keyFile2)}), fakeFS(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decrypt(readFixture(t, "encrypted/bundle.two-recipients.yaml"), ids); err != nil {
		t.Errorf("Decrypt with the SOPS_AGE_KEY identity: %v", err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// keyLine returns the AGE-SECRET-KEY line of a key file.
func keyLine(t *testing.T, keyFile string) string {
	t.Helper()
	for _, line := range strings.Split(keyFile, "\n") {
		if strings.HasPrefix(line, "AGE-SECRET-KEY-") {
			return line
		}
	}
	t.Fatal("no secret key line")
	return ""
}
