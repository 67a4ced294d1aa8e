package ingest

import "hash/maphash"

// runIDIndex maps run ids to their index in the dataset's runs: an
// open-addressing table of (hash, index) pairs, probed linearly, whose
// keys are read from the runs themselves (key(i) is run i's id).
//
// It replaces a map[string]int for the duplicate check of every run
// read: with the hash computed beforehand (by a parse worker, hashOf), an
// insert of a new id costs one probe of a 16-byte slot, where Go's map
// hashed the key on the merging goroutine and touched its control word,
// key and value. Ids are compared only when the full 64-bit hashes match.
type runIDIndex struct {
	seed  maphash.Seed
	slots []idSlot // len a power of two; hash 0 marks an empty slot
	n     int
	key   func(i int) string
}

type idSlot struct {
	hash uint64
	idx  int
}

func newRunIDIndex(key func(i int) string) *runIDIndex {
	return &runIDIndex{seed: maphash.MakeSeed(), key: key}
}

// hashOf is id's hash in x (never 0). Safe for concurrent use.
func (x *runIDIndex) hashOf(id string) uint64 { return maphash.String(x.seed, id) | 1 }

// reset empties x and makes room for about n ids.
func (x *runIDIndex) reset(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	x.slots, x.n = make([]idSlot, size), 0
}

// get returns the index of id, hashed h.
func (x *runIDIndex) get(id string, h uint64) (int, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(x.slots) - 1)
	for p := h & mask; ; p = (p + 1) & mask {
		s := &x.slots[p]
		if s.hash == 0 {
			return 0, false
		}
		if s.hash == h && x.key(s.idx) == id {
			return s.idx, true
		}
	}
}

// put records that id, hashed h and not in x, is at index i.
func (x *runIDIndex) put(h uint64, i int) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.grow()
	}
	mask := uint64(len(x.slots) - 1)
	p := h & mask
	for x.slots[p].hash != 0 {
		p = (p + 1) & mask
	}
	x.slots[p] = idSlot{h, i}
	x.n++
}

func (x *runIDIndex) grow() {
	old := x.slots
	x.reset(max(8, len(old)))
	for _, s := range old {
		if s.hash != 0 {
			x.put(s.hash, s.idx)
		}
	}
}

// len is the number of ids in x.
func (x *runIDIndex) len() int { return x.n }
