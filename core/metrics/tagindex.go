package metrics

// tagIndex finds a catalog id by tag on the hot paths (Filter, Add,
// ToRecordInfo look up every value of every record). A catalog's tags are
// known up front, so it searches for a collision-free table indexed by a
// cheap hash of a tag's length and six of its bytes; one string compare
// then confirms the hit. Tags that defeat the cheap hash fall back to a map.
type tagIndex struct {
	slots    []tagSlot
	mult     uint64
	shift    uint64
	fallback map[string]metricID
}

type tagSlot struct {
	tag string
	id  metricID
}

// tagKey packs a tag's length (mod 256) with its first, quarter, middle,
// three-quarter, second-to-last and last bytes (the second-to-last tells
// replay_sched_lag_p50 from _p90).
func tagKey(s string) uint64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	return uint64(n&0xff) | uint64(s[0])<<8 | uint64(s[n/4])<<16 | uint64(s[n/2])<<24 |
		uint64(s[n*3/4])<<32 | uint64(s[n-1])<<40 | uint64(s[max(n-2, 0)])<<48
}

func newTagIndex(byTag map[string]metricID) tagIndex {
	keys := make(map[uint64]bool, len(byTag))
	for tag := range byTag {
		k := tagKey(tag)
		if keys[k] {
			return tagIndex{fallback: byTag}
		}
		keys[k] = true
	}
	size := uint64(8)
	for size < 2*uint64(len(byTag)) {
		size *= 2
	}
	// A few table sizes and multipliers (odd, from a fixed LCG, so catalogs
	// are laid out the same every run) are plenty for tens of tags.
	seed := uint64(0x9E3779B97F4A7C15)
	for range 4 {
		shift := 64 - uint64(bitsFor(size))
		// One table per size, cleared for each multiplier tried: a catalog
		// that needs many tries allocated 80 MB here.
		slots := make([]tagSlot, size)
		used := make([]bool, size)
		for range 2000 {
			seed = seed*6364136223846793005 + 1442695040888963407
			mult := seed | 1
			clear(slots)
			clear(used)
			ok := true
			for tag, id := range byTag {
				i := (tagKey(tag) * mult) >> shift
				if used[i] {
					ok = false
					break
				}
				used[i], slots[i] = true, tagSlot{tag: tag, id: id}
			}
			if ok {
				return tagIndex{slots: slots, mult: mult, shift: shift}
			}
		}
		size *= 2
	}
	return tagIndex{fallback: byTag}
}

func bitsFor(pow2 uint64) int {
	n := 0
	for pow2 > 1 {
		pow2 >>= 1
		n++
	}
	return n
}

// lookup returns tag's id.
func (x *tagIndex) lookup(tag string) (metricID, bool) {
	if x.fallback != nil {
		id, ok := x.fallback[tag]
		return id, ok
	}
	s := &x.slots[(tagKey(tag)*x.mult)>>x.shift]
	if s.tag == tag && s.tag != "" {
		return s.id, true
	}
	return 0, false
}
