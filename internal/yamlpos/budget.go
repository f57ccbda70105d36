package yamlpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v4"
)

// A document's nodes as a decoder would construct them, aliases followed: a YAML alias
// costs a few bytes and stands for its whole anchored value, so a few hundred bytes of
// anchors that each repeat the previous one ten times stand for billions of nodes. Every
// document talops reads is checked against this budget on its parsed tree, where an alias
// is still one node, before anything decodes it into values.
const (
	// MaxNodes bounds the nodes of one document once its aliases are followed: four
	// times the nodes of the largest talops.yaml measured (5,000 nodes), far more than
	// any machine config, and a few hundred MB of decoded values at most.
	MaxNodes = 1 << 20

	// Below these counts aliasing is never refused by its ratio (the YAML library's own
	// floor).
	aliasFloor     = 100
	constructFloor = 1000

	// maxAliased is what aliases may add to a document in any case; beyond it, no more
	// than the document writes out: expansion stays linear in the file's size.
	maxAliased = 1 << 16
)

// BudgetError is a document that would expand past the decoding budget.
type BudgetError struct {
	// Line and Column are where the alias (or the node) that crossed the budget is written.
	Line, Column int
	Msg          string
}

func (e *BudgetError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Check parses every document of data and checks each against the decoding budget. A
// stream that does not parse is not its concern: the decoder that follows reports it.
func Check(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))

	for {
		var root yaml.Node

		err := dec.Decode(&root)
		if errors.Is(err, io.EOF) {
			return nil
		}

		if err != nil {
			return nil //nolint:nilerr // a syntax error is the decoder's to report, at its line
		}

		if err := CheckNode(&root); err != nil {
			return err
		}
	}
}

// CheckNode checks one parsed document against the decoding budget, once aliases are
// followed: at most MaxNodes nodes; no more of them reached through aliases than the YAML
// library itself allows when it decodes into values (the ratio Kubernetes' YAML decoding
// relies on, counted here before a single value is built); and aliases adding at most
// as many nodes as the document writes out, beyond a floor. The walk is linear in the
// document as written: each anchored value's size is counted once.
func CheckNode(root *yaml.Node) error {
	b := budget{sizes: map[*yaml.Node]int{}}
	if err := b.walk(root); err != nil {
		return err
	}

	return b.judge()
}

type budget struct {
	// constructed are the nodes a decoder would build; aliased, those of them reached
	// through an alias.
	constructed, aliased int
	// sizes are the expanded sizes of anchored values already counted; -1 while one is
	// being counted (an alias inside its own anchor).
	sizes map[*yaml.Node]int
	// largest is the alias that stands for the most nodes, the place of an error.
	largest     *yaml.Node
	largestSize int
}

func (b *budget) walk(n *yaml.Node) error {
	if n == nil {
		return nil
	}

	if n.Kind == yaml.AliasNode {
		size, err := b.size(n.Alias, n)
		if err != nil {
			return err
		}

		b.constructed += size
		b.aliased += size

		if b.largest == nil || size > b.largestSize {
			b.largest, b.largestSize = n, size
		}

		return nil
	}

	b.constructed++

	for _, c := range n.Content {
		if err := b.walk(c); err != nil {
			return err
		}
	}

	return nil
}

// size is the number of nodes n stands for once its aliases are followed, counted once
// per anchored node. at is the alias being followed, for the error's place.
func (b *budget) size(n, at *yaml.Node) (int, error) {
	if n == nil {
		return 0, nil
	}

	switch s, seen := b.sizes[n]; {
	case seen && s < 0:
		return 0, &BudgetError{Line: at.Line, Column: at.Column, Msg: "an alias refers to the value that contains it"}
	case seen:
		return s, nil
	}

	b.sizes[n] = -1

	total := 1

	for _, c := range n.Content {
		var (
			s   int
			err error
		)

		if c.Kind == yaml.AliasNode {
			s, err = b.size(c.Alias, c)
		} else {
			s, err = b.size(c, at)
		}

		if err != nil {
			return 0, err
		}

		// Saturate: a bomb's sizes would overflow an int long before they are compared
		// with the budget.
		total = min(total+s, MaxNodes+1)
	}

	b.sizes[n] = total

	return total, nil
}

func (b *budget) judge() error {
	written := b.constructed - b.aliased
	place := func(msg string) error {
		return &BudgetError{Line: b.largest.Line, Column: b.largest.Column, Msg: msg}
	}

	switch {
	case b.aliased == 0 && b.constructed > MaxNodes:
		return &BudgetError{Msg: fmt.Sprintf("the document has more than %d YAML nodes", MaxNodes)}
	case b.constructed > MaxNodes:
		return place(fmt.Sprintf("the aliases make the document more than %d YAML nodes", MaxNodes))
	case b.aliased > aliasFloor && b.constructed > constructFloor &&
		float64(b.aliased)/float64(b.constructed) > allowedAliasRatio(b.constructed):
		return place(fmt.Sprintf("excessive aliasing: aliases stand for %d of the document's %d YAML nodes", b.aliased, b.constructed))
	case b.aliased > max(maxAliased, written):
		return place(fmt.Sprintf("excessive aliasing: aliases stand for %d YAML nodes, more than the %d the document writes out", b.aliased, written))
	}

	return nil
}

// allowedAliasRatio is the share of a document's nodes that may come from aliases: 99 %
// up to 400,000 nodes, falling to 10 % at 4,000,000, as the YAML library decides.
func allowedAliasRatio(constructed int) float64 {
	const low, high = 400_000, 4_000_000

	switch {
	case constructed <= low:
		return 0.99
	case constructed >= high:
		return 0.10
	default:
		return 0.99 - 0.89*float64(constructed-low)/float64(high-low)
	}
}
