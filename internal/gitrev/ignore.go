package gitrev

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// Files is what the ignore check reads: a file's bytes, and what is at a path.
type Files struct {
	ReadFile func(name string) ([]byte, error)
	Lstat    func(name string) (fs.FileInfo, error)
}

// ExposedError says a credential would be written where Git picks it up: inside a work
// tree, and ignored by none of its rules. Rule is the line that ignores it, for IgnoreFile.
type ExposedError struct {
	Path, WorkTree, IgnoreFile, Rule string
}

func (e *ExposedError) Error() string {
	return fmt.Sprintf("%s is inside the Git work tree %s and not ignored: a `git add .` would commit a credential; add the line %s to %s, or write it outside the work tree",
		e.Path, e.WorkTree, e.Rule, e.IgnoreFile)
}

// CheckExposed returns an *ExposedError when abs (an absolute path, dir when it is a
// directory to be written) lies in a Git work tree and Git would not ignore it, as `git
// check-ignore --no-index` answers from the work tree's .gitignore files and
// .git/info/exclude. It does not read the user's global excludes (core.excludesFile) nor
// the index: a file ignored only globally is refused (--force writes it), and one already
// tracked is not told apart.
func CheckExposed(f Files, abs string, dir bool) error {
	root, gitDir, err := workTree(f, filepath.Dir(abs))
	if err != nil || root == "" {
		return err
	}

	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return err
	}

	rel = filepath.ToSlash(rel)

	ignored, err := isIgnored(f, root, gitDir, rel, dir)
	if err != nil || ignored {
		return err
	}

	rule := "/" + rel
	if dir {
		rule += "/"
	}

	return &ExposedError{Path: abs, WorkTree: root, IgnoreFile: filepath.Join(root, ".gitignore"), Rule: rule}
}

// WorkTree is the root of the work tree holding dir (an absolute path), "" when none
// does: the nearest directory with a .git, a directory or a file.
func WorkTree(f Files, dir string) (string, error) {
	root, _, err := workTree(f, dir)

	return root, err
}

// workTree finds the work tree holding dir: the nearest directory with a .git (a
// directory, or the file of a linked work tree or submodule naming its git directory).
func workTree(f Files, dir string) (root, gitDir string, err error) {
	for d := dir; ; d = filepath.Dir(d) {
		dotGit := filepath.Join(d, ".git")

		fi, err := f.Lstat(dotGit)

		switch {
		case err == nil && fi.IsDir():
			return d, dotGit, nil
		case err == nil:
			return d, linkedGitDir(f, d, dotGit), nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", "", fmt.Errorf("look for a Git work tree: %w", err)
		}

		if parent := filepath.Dir(d); parent == d {
			return "", "", nil
		}
	}
}

// linkedGitDir is the git directory a .git file names ("gitdir: PATH"), and for a linked
// work tree the common one (its commondir) that holds info/exclude; "" when unreadable.
func linkedGitDir(f Files, root, dotGit string) string {
	data, err := f.ReadFile(dotGit)
	if err != nil {
		return ""
	}

	gitDir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}

	gitDir = strings.TrimSpace(gitDir)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(root, gitDir)
	}

	if common, err := f.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}

		return c
	}

	return gitDir
}

// ignoreFile is the patterns of one source, and the directory (relative to the work tree,
// "" for its root) they are relative to.
type ignoreFile struct {
	base     string
	patterns []pattern
}

// isIgnored answers for rel (slash-separated, relative to root) as Git does: a path is
// ignored when one of its parent directories is, else when the last matching pattern
// (deeper .gitignore files after shallower ones, info/exclude first) is not negated.
func isIgnored(f Files, root, gitDir, rel string, dir bool) (bool, error) {
	var sources []ignoreFile

	if gitDir != "" {
		ps, err := readPatterns(f, filepath.Join(gitDir, "info", "exclude"))
		if err != nil {
			return false, err
		}

		sources = append(sources, ignoreFile{patterns: ps})
	}

	parts := strings.Split(rel, "/")

	for i := range parts {
		base := strings.Join(parts[:i], "/")

		ps, err := readPatterns(f, filepath.Join(root, filepath.FromSlash(base), ".gitignore"))
		if err != nil {
			return false, err
		}

		sources = append(sources, ignoreFile{base: base, patterns: ps})

		// The .gitignore files that apply to parts[:i+1] are those of its parents: the
		// first i+1 sources after info/exclude.
		isDir := dir || i < len(parts)-1
		if matches(sources, strings.Join(parts[:i+1], "/"), isDir) {
			return true, nil
		}
	}

	return false, nil
}

// matches reports whether the last pattern of sources that matches p ignores it.
func matches(sources []ignoreFile, p string, dir bool) bool {
	ignored := false

	for _, s := range sources {
		rel := p
		if s.base != "" {
			var ok bool
			if rel, ok = strings.CutPrefix(p, s.base+"/"); !ok {
				continue
			}
		}

		for _, pt := range s.patterns {
			if pt.match(rel, dir) {
				ignored = !pt.negate
			}
		}
	}

	return ignored
}

func readPatterns(f Files, name string) ([]pattern, error) {
	data, err := f.ReadFile(name)

	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", name, err)
	}

	var out []pattern

	for line := range strings.Lines(string(data)) {
		if p, ok := parsePattern(line); ok {
			out = append(out, p)
		}
	}

	return out, nil
}

// pattern is one line of a gitignore file (gitignore(5)).
type pattern struct {
	segments []string
	negate   bool
	dirOnly  bool
	// anchored patterns (a slash at the start or in the middle) match from the file's
	// directory; the others match a name at any depth.
	anchored bool
}

func parsePattern(line string) (pattern, bool) {
	line = strings.TrimRight(line, "\r\n")
	line = trimTrailingSpaces(line)

	if line == "" || strings.HasPrefix(line, "#") {
		return pattern{}, false
	}

	var p pattern

	if strings.HasPrefix(line, "!") {
		p.negate, line = true, line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}

	if strings.HasSuffix(line, "/") {
		p.dirOnly, line = true, strings.TrimRight(line, "/")
	}

	if line == "" {
		return pattern{}, false
	}

	p.anchored = strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")

	for _, s := range strings.Split(line, "/") {
		// [!...] is gitignore's negated class; path.Match spells it [^...].
		p.segments = append(p.segments, strings.ReplaceAll(s, "[!", "[^"))
	}

	return p, true
}

// trimTrailingSpaces drops trailing spaces unless a backslash escapes them.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}

	if strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-2] + " "
	}

	return s
}

func (p pattern) match(rel string, dir bool) bool {
	if p.dirOnly && !dir {
		return false
	}

	parts := strings.Split(rel, "/")

	if !p.anchored {
		return len(p.segments) == 1 && globMatch(p.segments[0], parts[len(parts)-1])
	}

	return matchSegments(p.segments, parts)
}

// matchSegments matches path segments against pattern segments, where ** matches any
// number of segments (zero included).
func matchSegments(pat, parts []string) bool {
	if len(pat) == 0 {
		return len(parts) == 0
	}

	if pat[0] == "**" {
		for i := 0; i <= len(parts); i++ {
			if matchSegments(pat[1:], parts[i:]) {
				return true
			}
		}

		return false
	}

	return len(parts) > 0 && globMatch(pat[0], parts[0]) && matchSegments(pat[1:], parts[1:])
}

func globMatch(pat, name string) bool {
	ok, err := path.Match(pat, name)

	return err == nil && ok
}
