package sops

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"filippo.io/age"
)

const (
	envAgeKey     = "SOPS_AGE_KEY"
	envAgeKeyFile = "SOPS_AGE_KEY_FILE"
	// defaultKeyFile is where sops looks under the user's config directory.
	defaultKeyFile = "sops/age/keys.txt"
)

// IdentitiesFromEnv returns the age identities the way sops finds them:
// SOPS_AGE_KEY (the key text itself, possibly several lines/keys, comments
// allowed) and SOPS_AGE_KEY_FILE (a path). getenv and readFile are injected
// (no os.Getenv inside). Returns (nil, nil) when neither is set. Also accept
// the sops default location ($XDG_CONFIG_HOME/sops/age/keys.txt, or
// $HOME/.config/sops/age/keys.txt) only via the injected functions.
//
// Like sops, identities from every source found are combined. A missing
// default key file is not an error; an unreadable SOPS_AGE_KEY_FILE is.
// Errors name the source and line, never the key text.
func IdentitiesFromEnv(getenv func(string) string, readFile func(string) ([]byte, error)) ([]age.Identity, error) {
	var ids []age.Identity
	if text := getenv(envAgeKey); text != "" {
		parsed, err := parseIdentities(text, envAgeKey)
		if err != nil {
			return nil, err
		}
		ids = append(ids, parsed...)
	}
	if path := getenv(envAgeKeyFile); path != "" {
		data, err := readFile(path)
		if err != nil {
			return nil, &IdentityError{Source: envAgeKeyFile + " " + path, Reason: "cannot read the file: " + readFailure(err)}
		}
		// Named with its variable: the file is the one the environment chose.
		parsed, err := parseIdentities(string(data), envAgeKeyFile+" "+path)
		if err != nil {
			return nil, err
		}
		ids = append(ids, parsed...)
	}
	if path := defaultKeyPath(getenv); path != "" {
		data, err := readFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, &IdentityError{Source: path, Reason: "cannot read the file: " + readFailure(err)}
		default:
			parsed, err := parseIdentities(string(data), path)
			if err != nil {
				return nil, err
			}
			ids = append(ids, parsed...)
		}
	}
	return ids, nil
}

func defaultKeyPath(getenv func(string) string) string {
	if dir := getenv("XDG_CONFIG_HOME"); dir != "" {
		// Go's os.UserConfigDir, which sops uses, rejects a relative one.
		if !filepath.IsAbs(dir) {
			return ""
		}
		return filepath.Join(dir, filepath.FromSlash(defaultKeyFile))
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", filepath.FromSlash(defaultKeyFile))
	}
	return ""
}

// parseIdentities reads one identity per line, skipping blank lines and
// '#' comments, as sops and age do.
func parseIdentities(text, source string) ([]age.Identity, error) {
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "-----BEGIN AGE ENCRYPTED FILE-----") || strings.HasPrefix(trimmed, "age-encryption.org/") {
		return nil, &IdentityError{Source: source, Reason: "passphrase-protected identity files are not supported"}
	}
	var ids []age.Identity
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, err := parseIdentity(line)
		if err != nil {
			return nil, &IdentityError{Source: source, Line: i + 1, Reason: err.Error()}
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// parseIdentity never wraps the age parser's error: it may echo key text.
func parseIdentity(line string) (age.Identity, error) {
	switch {
	case strings.HasPrefix(line, "AGE-SECRET-KEY-PQ-1"):
		if id, err := age.ParseHybridIdentity(line); err == nil {
			return id, nil
		}
	case strings.HasPrefix(line, "AGE-SECRET-KEY-1"):
		if id, err := age.ParseX25519Identity(line); err == nil {
			return id, nil
		}
	case strings.HasPrefix(line, "AGE-PLUGIN-"):
		return nil, errors.New("age plugin identities are not supported")
	default:
		return nil, errors.New("not an age secret key")
	}
	return nil, errors.New("malformed age secret key")
}

// readFailure describes a read error without the path, which the caller
// already names.
func readFailure(err error) string {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err.Error()
	}
	return err.Error()
}
