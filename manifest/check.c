/*
 * check.c: the LMDB file checked before LMDB maps it.
 *
 * LMDB trusts its file: it maps it and follows page numbers and node
 * offsets without bounds checks, so a truncated file faults (SIGBUS) and a
 * damaged page sends it through wild pointers (SIGSEGV), or into writes
 * over pages still in use.  The manifest is a cache, so damage must cost a
 * message and a rebuild, never a crash.  Before the file is mapped it is
 * read here with pread(), and accepted only when every page LMDB can
 * reach is well formed:
 *
 *   - the two meta pages (LMDB 0.9's format): magic, version, page size,
 *     transaction numbers of the parity LMDB finds them by, and, for the
 *     newest (the one LMDB uses), roots within its last_pg;
 *   - every page of the main table, of each named table and of the free
 *     list, from the roots down: its number, type and bounds; every node
 *     inside the page; keys at most LMDB's largest, strictly ascending and
 *     within the bounds their parent's keys set; child and overflow page
 *     numbers within last_pg; every page a table reaches, overflow pages
 *     included, within the file; all leaves at the table's depth; no
 *     page reached twice; the page and entry counts the table records;
 *   - free list entries keyed by past transactions, every free page
 *     number listed once, within last_pg, and used by no table.
 *
 * last_pg itself may lie past the file's end: a page a transaction took
 * there and freed again before its commit is put in the free list and
 * never written (LMDB's "loose" pages), and the file grows to it only
 * when a later transaction uses it.
 *
 * This reads each page in use once, by pread(), so that a file cut short
 * is an error here and not a fault in LMDB.  For a manifest of 200,000
 * files (17,456 pages in use, 68 MiB) it takes 20-30 ms with the file in
 * the page cache and 140 ms from disk, against about 6 s for a run that
 * finds nothing changed; a run reads most of these pages anyway.  After
 * it, LMDB follows no page number or offset that was not checked.  The
 * values themselves are the records, checked as they are decoded.
 *
 * A checksum of the file kept at a clean close would be cheaper to check
 * but says nothing after a run that did not end cleanly (killed, or a
 * system crash), which is when damage happens; the walk needs no state.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest/internal.h"

/* LMDB 0.9's on-disk format (mdb.c), for 64-bit page numbers. */
#define PAGEHDRSZ 16
#define NODESIZE 8
#define P_BRANCH 0x01
#define P_LEAF 0x02
#define P_OVERFLOW 0x04
#define P_META 0x08
#define F_BIGDATA 0x01
#define F_SUBDATA 0x02
#define MDB_MAGIC 0xBEEFC0DEu
#define MDB_DATA_VERSION 1
#define P_INVALID UINT64_MAX
#define DB_SIZE 48    /* an MDB_db record */
#define META_SIZE 152 /* an MDB_meta */
/* LMDB's cursors hold 32 levels; real trees are a handful deep. */
#define DEPTH_MAX 32
/* Named tables in the main table: ferry has four. */
#define SUBS_MAX 16

/* An MDB_db: a table's root and counts. */
struct dbrec {
	uint32_t pad; /* the page size, in the free table's record */
	uint16_t flags, depth;
	uint64_t branch, leaf, overflow, entries, root;
};

struct meta {
	uint32_t magic, version;
	struct dbrec db[2]; /* the free list, the main table */
	uint64_t last_pg, txnid;
};

/* What is counted while one table is walked. */
struct tally {
	uint64_t branch, leaf, overflow, entries;
};

struct walk {
	int fd;
	uint32_t psize;
	uint64_t last_pg, txnid; /* of the newest meta page */
	uint64_t end_pg;         /* the pages the file holds */
	uint8_t *seen;           /* a bit per page: reached already */
	uint8_t *pages;          /* DEPTH_MAX pages, one per level */
	int kind;                /* the table walked: 0 free, 1 main, 2 named */
	struct tally t;          /* of the table walked */
	uint8_t ovhdr[PAGEHDRSZ]; /* an overflow page's header */
	int nomem;
	struct dbrec subs[SUBS_MAX];
	int nsubs;
	char *why;
	size_t whylen;
};

enum { KIND_FREE, KIND_MAIN, KIND_NAMED };

/* Bounds on a subtree's keys: lo inclusive, hi exclusive; NULL for none. */
struct bounds {
	const uint8_t *lo, *hi;
	size_t lolen, hilen;
};

static int
bad(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->why, w->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint16_t
u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
u32(const uint8_t *p)
{
	return (uint32_t)u16(p) | (uint32_t)u16(p + 2) << 16;
}

static uint64_t
u64(const uint8_t *p)
{
	return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32;
}

static void
dbrec_read(const uint8_t *p, struct dbrec *d)
{
	d->pad = u32(p);
	d->flags = u16(p + 4);
	d->depth = u16(p + 6);
	d->branch = u64(p + 8);
	d->leaf = u64(p + 16);
	d->overflow = u64(p + 24);
	d->entries = u64(p + 32);
	d->root = u64(p + 40);
}

/* Reads n bytes at off; -1 (with the reason) when they are not all there. */
static int
read_at(struct walk *w, void *buf, size_t n, uint64_t off)
{
	ssize_t got;

	do
		got = pread(w->fd, buf, n, (off_t)off);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return bad(w, "cannot read it: %s", strerror(errno));
	if ((size_t)got != n)
		return bad(w, "it is cut short in the page at byte %llu",
		    (unsigned long long)off);
	return 0;
}

/*
 * Marks pages [pg, pg + n) reached; -1 when one is out of range or was.
 * A table's pages must be in the file; a free one (written) may not be.
 */
static int
reach(struct walk *w, uint64_t pg, uint64_t n, int written)
{
	uint64_t i;

	if (pg < 2 || n == 0 || pg > w->last_pg || n > w->last_pg - pg + 1)
		return bad(
		    w, "page %llu is outside the file", (unsigned long long)pg);
	if (written && (pg >= w->end_pg || n > w->end_pg - pg))
		return bad(w, "page %llu is past its end (%llu bytes)",
		    (unsigned long long)(pg + n - 1),
		    (unsigned long long)w->end_pg * w->psize);
	for (i = pg; i < pg + n; i++) {
		if (w->seen[i / 8] & (1u << (i % 8)))
			return bad(w, "page %llu is used twice",
			    (unsigned long long)i);
		w->seen[i / 8] |= (uint8_t)(1u << (i % 8));
	}
	return 0;
}

/* LMDB's order of keys: bytes, then length; 8-byte integers when intkey. */
static int
key_cmp(int intkey, const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	uint64_t x, y;
	int c;

	if (intkey) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return (x > y) - (x < y);
	}
	c = memcmp(a, b, na < nb ? na : nb);
	if (c != 0)
		return c;
	return (na > nb) - (na < nb);
}

/* Reads the page header at pg and checks its kind and bounds. */
static int
page_read(struct walk *w, uint64_t pg, int level, int flags, unsigned *nkeys)
{
	uint8_t *p = w->pages + (size_t)level * w->psize;
	unsigned lower, upper;

	if (reach(w, pg, 1, 1) < 0 ||
	    read_at(w, p, w->psize, pg * (uint64_t)w->psize) < 0)
		return -1;
	lower = u16(p + 12);
	upper = u16(p + 14);
	if (u64(p) != pg || u16(p + 10) != flags)
		return bad(w, "page %llu is not the %s page expected",
		    (unsigned long long)pg,
		    flags == P_LEAF ? "leaf" : "branch");
	if (lower < PAGEHDRSZ + 2 || lower > upper || upper > w->psize ||
	    (lower - PAGEHDRSZ) % 2 != 0)
		return bad(
		    w, "page %llu has bad bounds", (unsigned long long)pg);
	*nkeys = (lower - PAGEHDRSZ) / 2;
	return 0;
}

/*
 * Locates node i of the page at level: its key and, for a leaf, what
 * follows the key in the page (want bytes, the data or its page number).
 * On failure *node and *key are NULL and *klen 0.
 */
static int
node_at(struct walk *w, int level, unsigned i, int leaf, const uint8_t **node,
    const uint8_t **key, size_t *klen)
{
	const uint8_t *p = w->pages + (size_t)level * w->psize;
	unsigned off = u16(p + PAGEHDRSZ + 2 * i);
	size_t want = 0, ds;

	*node = NULL;
	*key = NULL;
	*klen = 0;
	if (off < u16(p + 14) || off % 2 != 0 || off + NODESIZE > w->psize)
		return bad(w, "page %llu: node %u is out of the page",
		    (unsigned long long)u64(p), i);
	*node = p + off;
	*key = p + off + NODESIZE;
	*klen = u16(p + off + 6);
	ds = (size_t)u16(p + off) | (size_t)u16(p + off + 2) << 16;
	if (leaf)
		want = (u16(p + off + 4) & F_BIGDATA) ? 8 : ds;
	if (*klen > MANIFEST_LMDB_KEY_MAX ||
	    off + NODESIZE + *klen + want > w->psize)
		return bad(w, "page %llu: node %u overruns the page",
		    (unsigned long long)u64(p), i);
	return 0;
}

/* Checks that key lies within b and after prev (when there is one). */
static int
key_check(struct walk *w, const struct bounds *b, const uint8_t *prev,
    size_t prevlen, const uint8_t *key, size_t klen, uint64_t pg)
{
	int intkey = w->kind == KIND_FREE;

	/* the free list is keyed by the transaction that freed the pages */
	if (intkey && (klen != 8 || u64(key) == 0 || u64(key) > w->txnid))
		return bad(w, "page %llu: a bad free list key",
		    (unsigned long long)pg);
	if (!intkey && klen == 0)
		return bad(
		    w, "page %llu: an empty key", (unsigned long long)pg);
	if ((prev != NULL && key_cmp(intkey, prev, prevlen, key, klen) >= 0) ||
	    (b->lo != NULL &&
	        key_cmp(intkey, b->lo, b->lolen, key, klen) > 0) ||
	    (b->hi != NULL && key_cmp(intkey, key, klen, b->hi, b->hilen) >= 0))
		return bad(
		    w, "page %llu: keys out of order", (unsigned long long)pg);
	return 0;
}

/* Checks a free list entry: n page numbers, each free and unused. */
static int
idl_check(struct walk *w, const uint8_t *v, size_t len)
{
	uint64_t n, i, pg, last = P_INVALID;

	if (len < 8 || (n = u64(v)) > len / 8 - 1)
		return bad(w, "a free list entry is malformed");
	for (i = 1; i <= n; i++) {
		pg = u64(v + 8 * i);
		if (pg >= last)
			return bad(w, "a free list entry is out of order");
		if (reach(w, pg, 1, 0) < 0)
			return -1;
		last = pg;
	}
	return 0;
}

/* Checks the overflow pages at pg that hold a value of ds bytes. */
static int
overflow_check(struct walk *w, uint64_t pg, size_t ds)
{
	uint8_t *v;
	uint64_t n;
	int rc;

	if (pg < 2 || pg > w->last_pg)
		return bad(w, "overflow page %llu is outside the file",
		    (unsigned long long)pg);
	if (read_at(w, w->ovhdr, PAGEHDRSZ, pg * (uint64_t)w->psize) < 0)
		return -1;
	n = u32(w->ovhdr + 12);
	if (u64(w->ovhdr) != pg || u16(w->ovhdr + 10) != P_OVERFLOW || n == 0 ||
	    n > w->last_pg - pg + 1 || ds + PAGEHDRSZ > n * w->psize)
		return bad(
		    w, "overflow page %llu is damaged", (unsigned long long)pg);
	if (reach(w, pg, n, 1) < 0)
		return -1;
	w->t.overflow += n;
	if (w->kind != KIND_FREE)
		return 0;
	if ((v = malloc(ds ? ds : 1)) == NULL) {
		w->nomem = 1;
		return bad(w, "out of memory");
	}
	rc = read_at(w, v, ds, pg * (uint64_t)w->psize + PAGEHDRSZ);
	if (rc == 0)
		rc = idl_check(w, v, ds);
	free(v);
	return rc;
}

/* Checks the value of a leaf node for the table walked. */
static int
value_check(
    struct walk *w, const uint8_t *node, const uint8_t *data, uint64_t pg)
{
	size_t ds = (size_t)u16(node) | (size_t)u16(node + 2) << 16;
	unsigned flags = u16(node + 4);

	if (flags == F_BIGDATA && w->kind != KIND_MAIN)
		return overflow_check(w, u64(data), ds);
	if (flags == F_SUBDATA && w->kind == KIND_MAIN && ds == DB_SIZE) {
		if (w->nsubs == SUBS_MAX)
			return bad(w, "more tables than ferry makes");
		dbrec_read(data, &w->subs[w->nsubs++]);
		return 0;
	}
	if (flags != 0 || w->kind == KIND_MAIN)
		return bad(w, "page %llu: a node of unknown kind",
		    (unsigned long long)pg);
	if (w->kind == KIND_FREE)
		return idl_check(w, data, ds);
	return 0;
}

static int walk_page(
    struct walk *w, uint64_t pg, int level, int depth, const struct bounds *b);

/* Checks the leaf page already read at level. */
static int
leaf_check(struct walk *w, int level, unsigned nkeys, const struct bounds *b)
{
	const uint8_t *node, *key, *prev = NULL;
	size_t klen, prevlen = 0;
	uint64_t pg = u64(w->pages + (size_t)level * w->psize);
	unsigned i;

	w->t.leaf++;
	w->t.entries += nkeys;
	for (i = 0; i < nkeys; i++) {
		if (node_at(w, level, i, 1, &node, &key, &klen) < 0 ||
		    key_check(w, b, prev, prevlen, key, klen, pg) < 0 ||
		    value_check(w, node, key + klen, pg) < 0)
			return -1;
		prev = key;
		prevlen = klen;
	}
	return 0;
}

/* Checks the branch page already read at level, and its children. */
static int
branch_check(struct walk *w, int level, int depth, unsigned nkeys,
    const struct bounds *b)
{
	const uint8_t *node, *key, *nkey;
	size_t klen, nklen;
	uint64_t pg = u64(w->pages + (size_t)level * w->psize), child;
	struct bounds cb = *b;
	unsigned i;

	w->t.branch++;
	if (node_at(w, level, 0, 0, &node, &key, &klen) < 0)
		return -1;
	for (i = 0; i < nkeys; i++) {
		/* node i's child holds the keys from its key to the next's */
		child = (uint64_t)u16(node) | (uint64_t)u16(node + 2) << 16 |
		        (uint64_t)u16(node + 4) << 32;
		cb.hi = b->hi;
		cb.hilen = b->hilen;
		if (i + 1 < nkeys) {
			if (node_at(w, level, i + 1, 0, &node, &nkey, &nklen) <
			        0 ||
			    key_check(w, b, i > 0 ? key : NULL, klen, nkey,
			        nklen, pg) < 0)
				return -1;
			cb.hi = nkey;
			cb.hilen = nklen;
		}
		if (walk_page(w, child, level + 1, depth, &cb) < 0)
			return -1;
		cb.lo = cb.hi;
		cb.lolen = cb.hilen;
		key = cb.hi;
		klen = cb.hilen;
	}
	return 0;
}

/* Checks the page pg at level (0 the root) of a tree depth levels deep. */
static int
walk_page(
    struct walk *w, uint64_t pg, int level, int depth, const struct bounds *b)
{
	int leaf = level == depth - 1;
	unsigned nkeys = 0;

	if (page_read(w, pg, level, leaf ? P_LEAF : P_BRANCH, &nkeys) < 0)
		return -1;
	if (leaf)
		return leaf_check(w, level, nkeys, b);
	return branch_check(w, level, depth, nkeys, b);
}

/* Checks the table d (of kind) and that it holds what d says. */
static int
table_walk(struct walk *w, const struct dbrec *d, int kind, const char *name)
{
	struct bounds b = {NULL, NULL, 0, 0};
	int flags = kind == KIND_FREE ? MDB_INTEGERKEY : 0;

	memset(&w->t, 0, sizeof(w->t));
	w->kind = kind;
	if (d->flags != flags)
		return bad(w, "the %s table has flags %#x", name, d->flags);
	if (d->root == P_INVALID) {
		if (d->depth != 0 || d->branch || d->leaf || d->overflow ||
		    d->entries)
			return bad(
			    w, "the %s table is empty but counted", name);
		return 0;
	}
	if (d->depth < 1 || d->depth > DEPTH_MAX)
		return bad(w, "the %s table is %u levels deep", name, d->depth);
	if (walk_page(w, d->root, 0, d->depth, &b) < 0)
		return -1;
	if (w->t.branch != d->branch || w->t.leaf != d->leaf ||
	    w->t.overflow != d->overflow || w->t.entries != d->entries)
		return bad(
		    w, "the %s table does not hold what it counts", name);
	return 0;
}

/* Reads meta page i (at off) into *m; -1 when it is not one. */
static int
meta_read(struct walk *w, uint64_t off, uint64_t i, struct meta *m)
{
	uint8_t p[PAGEHDRSZ + META_SIZE];

	if (read_at(w, p, sizeof(p), off) < 0)
		return -1;
	m->magic = u32(p + PAGEHDRSZ);
	m->version = u32(p + PAGEHDRSZ + 4);
	dbrec_read(p + PAGEHDRSZ + 24, &m->db[0]);
	dbrec_read(p + PAGEHDRSZ + 24 + DB_SIZE, &m->db[1]);
	m->last_pg = u64(p + PAGEHDRSZ + 120);
	m->txnid = u64(p + PAGEHDRSZ + 128);
	if (u64(p) != i || u16(p + 10) != P_META || m->magic != MDB_MAGIC)
		return bad(w, "meta page %llu is not an LMDB meta page",
		    (unsigned long long)i);
	if (m->version != MDB_DATA_VERSION)
		return bad(w, "meta page %llu is of LMDB format %u",
		    (unsigned long long)i, m->version);
	return 0;
}

/* Reads both meta pages and checks the newest, which LMDB uses, in *m. */
static int
metas_check(struct walk *w, uint64_t size, struct meta *m)
{
	struct meta m0, m1;
	uint32_t ps;

	if (meta_read(w, 0, 0, &m0) < 0)
		return -1;
	ps = m0.db[0].pad;
	/* LMDB takes the system's page size: 4 KiB to 64 KiB */
	if (ps < 4096 || ps > 65536 || (ps & (ps - 1)) != 0)
		return bad(w, "a page size of %u", ps);
	if (meta_read(w, ps, 1, &m1) < 0)
		return -1;
	if (m1.db[0].pad != ps)
		return bad(w, "the meta pages disagree on the page size");
	/*
	 * Transaction n is written to meta page n % 2, and LMDB finds the
	 * newest by that parity: a page of the other would have it use a
	 * snapshot not checked here.  Page 1 holds 0 until the first commit.
	 */
	if (m0.txnid % 2 != 0 || (m1.txnid % 2 != 1 && m1.txnid != 0))
		return bad(w, "the meta pages hold transactions %llu and %llu",
		    (unsigned long long)m0.txnid, (unsigned long long)m1.txnid);
	/* as LMDB's mdb_env_pick_meta(): page 0 unless page 1 is newer */
	*m = m1.txnid > m0.txnid ? m1 : m0;
	w->psize = ps;
	w->end_pg = size / ps;
	/* past the end is no damage (see above), past any map ferry makes is */
	if (m->last_pg < 1 || m->last_pg >= MANIFEST_MAP_MAX / ps)
		return bad(w, "its last page, %llu, is past any map",
		    (unsigned long long)m->last_pg);
	return 0;
}

/* The walk of the whole file, from the newest meta page. */
static int
file_walk(struct walk *w, uint64_t size)
{
	static const char *const names[] = {"free", "main"};
	struct meta m;
	int i;

	if (metas_check(w, size, &m) < 0)
		return -1;
	w->last_pg = m.last_pg;
	w->txnid = m.txnid;
	for (i = 0; i < 2; i++)
		if (m.db[i].root != P_INVALID &&
		    (m.db[i].root < 2 || m.db[i].root > m.last_pg))
			return bad(w, "the %s table's root is outside the file",
			    names[i]);
	w->seen = calloc(m.last_pg / 8 + 1, 1);
	w->pages = malloc((size_t)DEPTH_MAX * w->psize);
	if (w->seen == NULL || w->pages == NULL) {
		w->nomem = 1;
		return bad(w, "out of memory");
	}
	if (table_walk(w, &m.db[1], KIND_MAIN, "main") < 0)
		return -1;
	for (i = 0; i < w->nsubs; i++)
		if (table_walk(w, &w->subs[i], KIND_NAMED, "named") < 0)
			return -1;
	return table_walk(w, &m.db[0], KIND_FREE, "free");
}

/*
 * Returns FERRY_OK when the file at fd is empty (LMDB starts it) or
 * passes; FERRY_EDB with the reason in why (whylen bytes) when it is
 * damaged; FERRY_ENOMEM.  Reads fd with pread only; thread-safe.
 */
ferry_err
manifest_file_check(int fd, char *why, size_t whylen)
{
	struct walk w;
	struct stat st;
	ferry_err e = FERRY_OK;

	memset(&w, 0, sizeof(w));
	w.fd = fd;
	w.why = why;
	w.whylen = whylen;
	if (whylen > 0)
		why[0] = '\0';
	if (fstat(fd, &st) < 0) {
		bad(&w, "cannot stat it: %s", strerror(errno));
		return FERRY_EDB;
	}
	if (st.st_size == 0)
		return FERRY_OK;
	if (file_walk(&w, (uint64_t)st.st_size) < 0)
		e = w.nomem ? FERRY_ENOMEM : FERRY_EDB;
	free(w.seen);
	free(w.pages);
	return e;
}
