package metrics

import (
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Values must survive chunk boundaries exactly and in order.
func TestSeriesAcrossChunks(t *testing.T) {
	cases := []struct {
		name   string
		scalar int // scalars added first
		lists  []int
	}{
		{"empty", 0, nil},
		{"one chunk", 10, nil},
		{"exactly first chunk", firstChunk, nil},
		{"list straddles chunks", firstChunk - 3, []int{10}},
		{"many lists past max chunk", 5, []int{maxChunk, maxChunk + 7, 99}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s series
			var want []float64
			next := 0.0
			for range tc.scalar {
				s.addValue(sdk.MetricValue{Scalar: next})
				want = append(want, next)
				next++
			}
			for _, n := range tc.lists {
				l := make([]float64, n)
				for i := range l {
					l[i] = next
					next++
				}
				s.addValue(sdk.MetricValue{List: l, IsList: true})
				want = append(want, l...)
			}
			got := s.values()
			if s.len() != len(want) || !slices.Equal(got, want) {
				t.Fatalf("len %d, values equal %v; want %d values", s.len(), slices.Equal(got, want), len(want))
			}
			wantSum := 0.0
			for _, x := range want {
				wantSum += x
			}
			if s.sum() != wantSum {
				t.Fatalf("sum = %v, want %v", s.sum(), wantSum)
			}
			for _, c := range s.chunks {
				if cap(c.vals) > maxChunk {
					t.Fatalf("chunk capacity %d exceeds %d", cap(c.vals), maxChunk)
				}
			}
		})
	}
}

// useSmallChunks makes series spill after a few values, for the test.
func useSmallChunks(t *testing.T, first, most int) {
	t.Helper()
	oldFirst, oldMax := firstChunk, maxChunk
	firstChunk, maxChunk = first, most
	t.Cleanup(func() { firstChunk, maxChunk = oldFirst, oldMax })
}

// A spilled series reads back exactly what was added, in order, whether
// whole (values, sum) or by the timeslice cursor in uneven steps, and keeps
// at most one full chunk in memory.
func TestSpilledSeriesReadsBackExactly(t *testing.T) {
	useSmallChunks(t, 4, 16)
	sp := newSpill(t.TempDir())
	defer sp.close()
	s := series{sp: sp}
	var want []float64
	for i := range 1000 {
		x := float64(i)*1.25 + 1e-9*float64(i%7) // not all integers: exact bits matter
		if i%97 == 0 {
			s.addAll([]float64{x, -x, math.Inf(1)})
			want = append(want, x, -x, math.Inf(1))
			continue
		}
		s.add(x)
		want = append(want, x)
	}
	inMemory, onDisk := 0, 0
	for _, c := range s.chunks {
		if c.spilled {
			onDisk += c.ref.n
		} else {
			inMemory += len(c.vals)
		}
	}
	if onDisk == 0 || inMemory > 2*maxChunk {
		t.Fatalf("%d values on disk, %d in memory: want all but the last chunks spilled", onDisk, inMemory)
	}
	if got := s.values(); !slices.Equal(got, want) {
		t.Fatalf("values differ after spilling (len %d vs %d)", len(got), len(want))
	}
	wantSum := 0.0
	for _, x := range want {
		wantSum += x
	}
	if got := s.sum(); got != wantSum && !(math.IsInf(got, 1) && math.IsInf(wantSum, 1)) {
		t.Fatalf("sum %v, want %v", got, wantSum)
	}
	cur := seriesCursor{s: &s}
	var read []float64
	for step := 1; len(read) < len(want); step = step%23 + 1 {
		cur.next(step, func(v []float64) { read = append(read, v...) })
	}
	if !slices.Equal(read, want) {
		t.Fatal("the cursor read back other values than were added")
	}
	if err := sp.err(); err != nil {
		t.Fatal(err)
	}
}

// Where the spill file cannot be created, chunks stay in memory: nothing
// is lost.
func TestSpillThatCannotWriteKeepsValuesInMemory(t *testing.T) {
	useSmallChunks(t, 4, 16)
	sp := newSpill(filepath.Join(t.TempDir(), "no", "such", "dir"))
	s := series{sp: sp}
	for i := range 200 {
		s.add(float64(i))
	}
	for _, c := range s.chunks {
		if c.spilled {
			t.Fatal("a chunk was spilled to a directory that does not exist")
		}
	}
	if got := s.values(); len(got) != 200 || got[199] != 199 {
		t.Fatalf("values lost: %d of 200", len(got))
	}
}

// A run whose series spill to disk summarizes to exactly the results of
// the same run kept in memory, timeslices included.
func TestSpilledRunSummarizesAsInMemory(t *testing.T) {
	useSmallChunks(t, 8, 64)
	summarize := func(dir string) *sdk.Results {
		info := streamingInfo()
		info.ArtifactDir = dir
		acc, err := NewAccumulator(newCatalog(t, info), info)
		if err != nil {
			t.Fatal(err)
		}
		if err := acc.SetSliceDuration(500 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if dir == "" {
			acc.spill.off = true // the in-memory reference
		}
		for i := range 3000 {
			rm := familyValues(i)
			rm.Record.TimestampNs = int64(i) * 1_000_000
			acc.Add(rm)
		}
		res := acc.Summarize()
		if err := acc.Err(); err != nil {
			t.Fatal(err)
		}
		spilled := 0
		for id := range acc.series {
			for _, c := range acc.series[id].chunks {
				if c.spilled {
					spilled++
				}
			}
		}
		if (dir != "") != (spilled > 0) {
			t.Fatalf("dir %q: %d chunks spilled", dir, spilled)
		}
		return res
	}
	onDisk, inMemory := summarize(t.TempDir()), summarize("")
	if !reflect.DeepEqual(onDisk, inMemory) {
		t.Error("the spilled run's results differ from the in-memory run's")
	}
	if len(onDisk.Metrics) == 0 || len(onDisk.Timeslices) == 0 {
		t.Fatalf("nothing summarized: %d metrics, %d timeslices", len(onDisk.Metrics), len(onDisk.Timeslices))
	}
}
