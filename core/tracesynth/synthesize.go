package tracesynth

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Synthesize is AIPerf's Synthesizer.synthesize_traces over records in
// order; the input is not modified. seed is the run's random seed (it only
// matters with a root multiplier above 1). Per record:
//
//   - hash_ids: the leading run of ids that occur twice or more in the whole
//     input is the shared prefix; it is stretched (multiplier > 1: id h
//     becomes h·⌊m⌋ … h·⌊m⌋+⌊m⌋−1, plus fresh ids up to ⌈len·m⌉ blocks) or
//     cut to max(1, ⌊len·m⌋) blocks (m < 1); the rest of the prompt,
//     (input_length − prefix blocks·block size) × prompt multiplier tokens
//     truncated, gets fresh ids, numbered after the largest shared id. With
//     a root multiplier R each record moves to tree t ∈ [0, R) drawn from
//     the seeded generator, its ids shifted by t·(largest id + 1). Records
//     without hash_ids keep their input_length, and lose an empty list.
//   - input_length (only on records without text_input, messages and
//     payload): new prefix length + new prompt length, capped at MaxISL.
//   - timestamp: int(timestamp / speedup) (float timestamps are truncated
//     whenever the synthesis runs).
//   - output_length: max(1, min(round-half-even(output_length × multiplier),
//     MaxOSL)).
//
// It fails, as AIPerf does, on a record whose input_length is shorter than
// its shared prefix blocks.
func Synthesize(in []*Trace, p Params, seed int64) ([]*Trace, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	ids := make([][]int64, len(in))
	lens := make([]int64, len(in))
	for i, t := range in {
		var err error
		if ids[i], err = t.hashIDs(); err != nil {
			return nil, fmt.Errorf("%s: %w", lineRef(t, i), err)
		}
		if lens[i], _, err = t.int("input_length"); err != nil {
			return nil, fmt.Errorf("%s: %w", lineRef(t, i), err)
		}
	}
	newIDs, newLens, err := applyMultipliers(in, ids, lens, p, seed)
	if err != nil {
		return nil, err
	}
	out := make([]*Trace, len(in))
	for i, t := range in {
		st := t.clone()
		isl := newLens[i]
		if len(newIDs[i]) == 0 {
			// AIPerf: trace.get("input_length", block_size).
			if v, ok, _ := t.int("input_length"); ok {
				isl = v
			} else {
				isl = int64(p.BlockSize)
			}
			st.del("hash_ids")
		} else {
			st.set("hash_ids", intList(newIDs[i]))
		}
		if p.MaxISL > 0 && isl > int64(p.MaxISL) {
			isl = int64(p.MaxISL)
		}
		_, text := t.Raw("text_input")
		_, msgs := t.Raw("messages")
		_, payload := t.Raw("payload")
		if !text && !msgs && !payload {
			st.set("input_length", intRaw(isl))
		}
		if ts, ok, _ := t.number("timestamp"); ok {
			st.set("timestamp", intRaw(truncInt(ts/p.SpeedupRatio)))
		}
		if osl, ok, _ := t.int("output_length"); ok {
			scaled := truncInt(math.RoundToEven(float64(osl) * p.OutputLenMultiplier))
			if p.MaxOSL > 0 {
				scaled = min(scaled, int64(p.MaxOSL))
			}
			st.set("output_length", intRaw(max(1, scaled)))
		}
		out[i] = st
	}
	return out, nil
}

// applyMultipliers is AIPerf's Synthesizer._apply_multipliers (without its
// test-only rolling-hash renormalization).
func applyMultipliers(in []*Trace, all [][]int64, lens []int64, p Params, seed int64) ([][]int64, []int64, error) {
	count := map[int64]int{}
	for _, ids := range all {
		for _, h := range ids {
			count[h]++
		}
	}
	var maxShared int64 // AIPerf: max(shared) if shared else 0
	first := true
	for h, c := range count {
		if c > 1 && (first || h > maxShared) {
			maxShared, first = h, false
		}
	}
	prefixMult, promptMult, bs := p.PrefixLenMultiplier, p.PromptLenMultiplier, int64(p.BlockSize)
	multInt := int64(1)
	if prefixMult > 1 {
		multInt = int64(prefixMult)
	}
	// The largest id handed out so far; fresh ids continue after it.
	next := (maxShared + 1) * multInt

	outIDs := make([][]int64, len(all))
	outLens := make([]int64, len(all))
	for i, ids := range all {
		if len(ids) == 0 {
			outLens[i] = lens[i]
			continue
		}
		n := 0
		for n < len(ids) && count[ids[n]] > 1 {
			n++
		}
		prefix := ids[:n]
		prefixLen := int64(n) * bs
		promptLen := lens[i] - prefixLen
		if promptLen < 0 {
			return nil, nil, fmt.Errorf("%s: input_length %d is shorter than its %d shared prefix blocks of %d tokens (%d): AIPerf's synthesizer refuses such a record (input_len (%d) < prefix_len (%d))",
				lineRef(in[i], i), lens[i], n, bs, prefixLen, lens[i], prefixLen)
		}
		// Bound the output so absurd multipliers fail instead of
		// exhausting memory or overflowing ids.
		prefixBlocks := float64(len(prefix)) * max(prefixMult, 1)
		promptTokens := float64(promptLen) * promptMult
		if prefixBlocks > maxBlocks || promptTokens/float64(bs) > maxBlocks {
			return nil, nil, fmt.Errorf("%s: the multipliers give a record of more than %d blocks", lineRef(in[i], i), int64(maxBlocks))
		}
		var stretched []int64
		var newPrefixLen int64
		switch {
		case prefixMult > 1:
			stretched = make([]int64, 0, len(prefix)*int(multInt))
			for _, h := range prefix {
				for j := range multInt {
					stretched = append(stretched, h*multInt+j)
				}
			}
			target := int64(math.Ceil(float64(len(prefix)) * prefixMult))
			for extra := target - int64(len(stretched)); extra > 0; extra-- {
				next++
				stretched = append(stretched, next)
			}
			newPrefixLen = int64(len(stretched)) * bs
		case prefixMult < 1:
			// AIPerf keeps at least one block's length even when the
			// record has no shared prefix at all.
			keep := max(1, int64(float64(len(prefix))*prefixMult))
			stretched = append([]int64(nil), prefix[:min(keep, int64(len(prefix)))]...)
			newPrefixLen = keep * bs
		default:
			stretched = append([]int64(nil), prefix...)
			newPrefixLen = prefixLen
		}
		newPromptLen := int64(promptTokens)
		for range (newPromptLen + bs - 1) / bs {
			next++
			stretched = append(stretched, next)
		}
		outIDs[i] = stretched
		outLens[i] = newPrefixLen + newPromptLen
	}

	if root := p.PrefixRootMultiplier; root > 1 {
		offsetBase := next + 1
		if float64(root)*math.Abs(float64(offsetBase)) > math.MaxInt64/2 {
			return nil, nil, fmt.Errorf("--synthesis-prefix-root-multiplier %d: the shifted hash ids would overflow 64 bits", root)
		}
		r := newPyRandom(deriveSeed(seed, rngIdentifier))
		for _, ids := range outIDs {
			if len(ids) == 0 {
				continue
			}
			if tree := int64(r.intn(uint64(root))); tree > 0 {
				for j := range ids {
					ids[j] += tree * offsetBase
				}
			}
		}
	}
	return outIDs, outLens, nil
}

// maxBlocks bounds the blocks of one synthesized record (2^24 blocks of
// 512 tokens are 8.6 billion tokens).
const maxBlocks = 1 << 24

// truncInt is Python's int(float): toward zero, saturating at the int64
// range (a float that large has no exact integer anyway).
func truncInt(f float64) int64 {
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func intRaw(v int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(v, 10)) }

func intList(ids []int64) json.RawMessage {
	var b strings.Builder
	b.WriteByte('[')
	for i, h := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(h, 10))
	}
	b.WriteByte(']')
	return json.RawMessage(b.String())
}
