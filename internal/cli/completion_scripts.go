package cli

import (
	"fmt"
	"strings"
)

// bashCompletion is the bash script: the command line's known prefix picks the words
// offered; after a flag that takes a value, and for arguments, the shell completes files.
func bashCompletion(tree []complNode) string {
	var paths, values []string

	for _, n := range tree {
		if n.Path != "" {
			paths = append(paths, `"`+n.Path+`"`)
		}

		for _, f := range n.Flags {
			if f.Value {
				values = append(values, `"`+n.Path+`:-`+f.Name+`"`, `"`+n.Path+`:--`+f.Name+`"`)
			}
		}
	}

	var b strings.Builder

	b.WriteString(`# bash completion for talops, printed by talops completion bash:
#   source <(talops completion bash)
_talops() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path="" next i
  for ((i = 1; i < COMP_CWORD; i++)); do
    next="${path:+$path }${COMP_WORDS[i]}"
    case "$next" in
      ` + strings.Join(paths, "|") + `) path=$next ;;
    esac
  done
  COMPREPLY=()
  case "$path:$prev" in
    ` + strings.Join(values, "|") + `) return ;;
  esac
  local subs="" flags=""
  case "$path" in
`)

	for _, n := range tree {
		var flags []string
		for _, f := range n.Flags {
			flags = append(flags, "--"+f.Name)
		}

		fmt.Fprintf(&b, "    %q) subs=%q flags=%q ;;\n", n.Path, strings.Join(n.Subs, " "), strings.Join(flags, " "))
	}

	// No mapfile: zsh runs this script through bashcompinit, which has compgen but not
	// mapfile. The words are flag and command names, so splitting them is safe.
	b.WriteString(`  esac
  case "$cur" in
    -*) COMPREPLY=($(compgen -W "$flags" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -W "$subs" -- "$cur")) ;;
  esac
}
complete -o default -F _talops talops
`)

	return b.String()
}

// zshCompletion is the bash script run by zsh's bash completion emulation.
func zshCompletion(tree []complNode) string {
	return `# zsh completion for talops, printed by talops completion zsh:
#   source <(talops completion zsh)      (after compinit)
autoload -U +X bashcompinit && bashcompinit
` + bashCompletion(tree)
}

// fishCompletion is the fish script: one complete line per command, subcommand and flag.
func fishCompletion(tree []complNode) string {
	var b strings.Builder

	b.WriteString("# fish completion for talops, printed by talops completion fish:\n#   talops completion fish > ~/.config/fish/completions/talops.fish\n")

	short := map[string]string{}
	for _, n := range tree {
		short[n.Path] = n.Short
	}

	for _, n := range tree {
		cond := fishCondition(n.Path, n.Subs)

		for _, s := range n.Subs {
			line := fmt.Sprintf("complete -c talops -n %s -a %s", fishQuote(cond), s)
			if d := short[strings.TrimSpace(n.Path+" "+s)]; d != "" {
				line += " -d " + fishQuote(d)
			}

			b.WriteString(line + "\n")
		}

		for _, f := range n.Flags {
			line := fmt.Sprintf("complete -c talops -n %s -l %s", fishQuote(fishCondition(n.Path, nil)), f.Name)
			if f.Value {
				line += " -r -F"
			}

			fmt.Fprintf(&b, "%s -d %s\n", line, fishQuote(f.Usage))
		}
	}

	return b.String()
}

// fishCondition holds when the command line has reached path and, with subs, none of them yet.
func fishCondition(path string, subs []string) string {
	if path == "" {
		return "__fish_use_subcommand"
	}

	var parts []string
	for _, w := range strings.Fields(path) {
		parts = append(parts, "__fish_seen_subcommand_from "+w)
	}

	if len(subs) > 0 {
		parts = append(parts, "not __fish_seen_subcommand_from "+strings.Join(subs, " "))
	}

	return strings.Join(parts, "; and ")
}

// fishQuote quotes s for fish, in single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
