package ingest

import "hash/maphash"

// runIDIndex maps run ids to their index in the dataset's runs: an
// open-addressing table probed linearly, whose keys are read from the
// runs themselves (key(i) is run i's id).
//
// It replaces a map[string]int for the duplicate check of every run read.
// The hash is computed beforehand (by a parse worker, hashOf), and a slot
// is one word: the hash's upper 32 bits (never 0; 0 marks an empty slot)
// over the index. For METR ×20 (141,180 runs) the table is 2 MiB, where
// Go's map held string headers and values in about 8: each insert is a
// probe into memory the caches are less likely to hold. Ids are compared
// only when the 32 hash bits match.
type runIDIndex struct {
	seed  maphash.Seed
	slots []uint64 // len a power of two
	n     int
	key   func(i int) string
}

const idxBits = 32 // low bits of a slot: the index (runs < 2^32)

func newRunIDIndex(key func(i int) string) *runIDIndex {
	return &runIDIndex{seed: maphash.MakeSeed(), key: key}
}

// hashOf is id's hash in x (upper 32 bits never all 0). Safe for
// concurrent use.
func (x *runIDIndex) hashOf(id string) uint64 {
	return maphash.String(x.seed, id) | 1<<idxBits
}

// reset empties x and makes room for about n ids (load at most 0.7).
func (x *runIDIndex) reset(n int) {
	size := 16
	for 7*size < 10*n {
		size *= 2
	}
	x.slots, x.n = make([]uint64, size), 0
	adviseHugeSlice(x.slots[:0]) // 8 MB for METR ×100's ids
}

// home is the first slot probed for hash h.
func (x *runIDIndex) home(h uint64) uint64 { return (h >> idxBits) & uint64(len(x.slots)-1) }

// get returns the index of id, hashed h.
func (x *runIDIndex) get(id string, h uint64) (int, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(x.slots) - 1)
	tag := h >> idxBits
	for p := x.home(h); ; p = (p + 1) & mask {
		s := x.slots[p]
		if s == 0 {
			return 0, false
		}
		if s>>idxBits == tag {
			if i := int(s & (1<<idxBits - 1)); x.key(i) == id {
				return i, true
			}
		}
	}
}

// getOrPut returns the index of id, hashed h, if x holds it; otherwise
// it records id at index i and returns i, false. One probe sequence where
// get then put would walk it twice.
func (x *runIDIndex) getOrPut(id string, h uint64, i int) (int, bool) {
	if 10*(x.n+1) > 7*len(x.slots) {
		x.grow()
	}
	mask := uint64(len(x.slots) - 1)
	tag := h >> idxBits
	for p := x.home(h); ; p = (p + 1) & mask {
		s := x.slots[p]
		if s == 0 {
			x.slots[p] = h&^(1<<idxBits-1) | uint64(i)
			x.n++
			return i, false
		}
		if s>>idxBits == tag {
			if j := int(s & (1<<idxBits - 1)); x.key(j) == id {
				return j, true
			}
		}
	}
}

// touch reads the home slots of the ids hashed hs and returns their sum,
// for the caller to keep: loads that do not depend on one another, which
// the processor overlaps, so that the getOrPut calls that follow find
// their slots in cache instead of waiting for memory one probe at a time
// (the table of METR ×100's 706,000 ids is 8 MB).
func (x *runIDIndex) touch(hs func(k int) uint64, n int) uint64 {
	if len(x.slots) == 0 {
		return 0
	}
	var sum uint64
	for k := range n {
		sum += x.slots[x.home(hs(k))]
	}
	return sum
}

// put records that id, hashed h and not in x, is at index i.
func (x *runIDIndex) put(h uint64, i int) {
	if 10*(x.n+1) > 7*len(x.slots) {
		x.grow()
	}
	mask := uint64(len(x.slots) - 1)
	p := x.home(h)
	for x.slots[p] != 0 {
		p = (p + 1) & mask
	}
	x.slots[p] = h&^(1<<idxBits-1) | uint64(i)
	x.n++
}

func (x *runIDIndex) grow() {
	old := x.slots
	x.reset(max(8, len(old)))
	for _, s := range old {
		if s != 0 {
			x.put(s, int(s&(1<<idxBits-1)))
		}
	}
}

// len is the number of ids in x.
func (x *runIDIndex) len() int { return x.n }
