package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"time"
)

// canonicalVersion opens every canonical encoding, so a future layout cannot collide with this
// one.
const canonicalVersion = "corridor.ledger.transfer.v1"

// CanonicalBytes is the deterministic encoding of a transfer that the hash chain covers.
// Layout, with str = uint32 big-endian byte length then the bytes, i64 = 8 bytes big-endian
// two's complement, and time = one byte 0 for the zero time, else byte 1 then i64 Unix
// microseconds (the precision Postgres stores):
//
//	str("corridor.ledger.transfer.v1")
//	str(ID) str(Reference) str(Type) str(Environment) str(Asset) str(PendingID) str(ReversedID)
//	i64(Amount) time(ExpiresAt) time(CreatedAt)
//	uint32(len(Postings)), then per posting sorted by AccountID: str(AccountID) i64(Amount)
//	uint32(len(Metadata)), then per entry sorted by key: str(key) str(value)
//
// Every variable-length field is length-prefixed, so no two different transfers encode to the
// same bytes. The state (PENDING, POSTED, …) is not covered: it changes; Rebuild derives it.
func CanonicalBytes(t Transfer) []byte {
	var b bytes.Buffer
	putString(&b, canonicalVersion)
	for _, s := range []string{t.ID, t.Reference, string(t.Type), string(t.Environment), t.Asset, t.PendingID, t.ReversedID} {
		putString(&b, s)
	}
	putInt64(&b, t.Amount)
	putTime(&b, t.ExpiresAt)
	putTime(&b, t.CreatedAt)
	postings := sortedPostings(t.Postings)
	putLength(&b, len(postings))
	for _, p := range postings {
		putString(&b, p.AccountID)
		putInt64(&b, p.Amount)
	}
	keys := make([]string, 0, len(t.Metadata))
	for k := range t.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	putLength(&b, len(keys))
	for _, k := range keys {
		putString(&b, k)
		putString(&b, t.Metadata[k])
	}
	return b.Bytes()
}

// ChainHash links a transfer to the one before it: sha256(prevHash || CanonicalBytes(t)). The
// first transfer of a chain has an empty prevHash. Changing any recorded transfer changes its
// hash and every hash after it.
func ChainHash(prevHash []byte, t Transfer) []byte {
	h := sha256.New()
	h.Write(prevHash)
	h.Write(CanonicalBytes(t))
	return h.Sum(nil)
}

// ChainEntry is a transfer with the hash the store recorded for it.
type ChainEntry struct {
	Transfer Transfer
	Hash     []byte
}

// VerifyChain recomputes the chain over entries in sequence order, starting from prevHash (empty
// for the chain's first transfer, or the last verified hash when checking a window). It returns
// the index of the first entry whose recorded hash does not match, so `corridor ledger verify`
// can name the first broken transfer; (-1, true) when every hash matches.
func VerifyChain(prevHash []byte, entries []ChainEntry) (firstBroken int, ok bool) {
	prev := prevHash
	for i, e := range entries {
		want := ChainHash(prev, e.Transfer)
		if !bytes.Equal(want, e.Hash) {
			return i, false
		}
		prev = want
	}
	return -1, true
}

func putString(b *bytes.Buffer, s string) {
	putLength(b, len(s))
	b.WriteString(s)
}

// putLength writes a length prefix. Transfers are bounded far below 4 GiB by the request body
// limit and the postings cap, so a longer field is a programming error.
func putLength(b *bytes.Buffer, n int) {
	if n < 0 || n > math.MaxUint32 {
		panic(fmt.Sprintf("ledger: canonical field length %d does not fit a uint32 prefix", n))
	}
	putUint32(b, uint32(n))
}

func putUint32(b *bytes.Buffer, v uint32) {
	b.Write(binary.BigEndian.AppendUint32(nil, v))
}

func putInt64(b *bytes.Buffer, v int64) {
	b.Write(binary.BigEndian.AppendUint64(nil, uint64(v))) //nolint:gosec // the two's-complement bit pattern is the encoding
}

func putTime(b *bytes.Buffer, t time.Time) {
	if t.IsZero() {
		b.WriteByte(0)
		return
	}
	b.WriteByte(1)
	putInt64(b, t.UnixMicro())
}
