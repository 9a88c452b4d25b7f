#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates tests/data/codecs/golden_v2_1.json.zst and golden_v2_2.json.zst: compressive-encoding
pieces of pages written by real pylance 14.0.2, with the values they must decode to.

Run with the project's venv (pylance 14.0.2, pyarrow):

    .venv/bin/python tests/format/codecs/gen_codec_golden.py

For every case the script writes a one-column dataset with Lance, reads the data file's
footer, column metadata and page layouts with a tiny protobuf reader, cuts the page into
the pieces the codecs see (mini-block chunk value buffers, rep/def level blocks, the page
dictionary, full-zip values without their control words) and records, next to them, the
expected values taken from the Arrow input. The layouts' framing (chunk metadata words,
chunk headers, control words) is undone here, in Python, so the C++ test only exercises
the codecs. The CompressiveEncoding messages are stored as their raw protobuf bytes.

Every case asserts the encoding it expects Lance to pick, so a change in pylance's
choices is noticed when the vectors are regenerated.
"""
import base64
import glob
import json
import os
import random
import shutil
import string
import struct
import sys
import tempfile

import lance
import pyarrow as pa

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'data', 'codecs')

# --- a tiny protobuf reader ------------------------------------------------------------


def varint(b, i):
    r = 0
    s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7f) << s
        s += 7
        if not c & 0x80:
            return r, i


def parse(b):
    i = 0
    out = []
    while i < len(b):
        key, i = varint(b, i)
        fn, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v = b[i:i + 8]
            i += 8
        elif wt == 5:
            v = b[i:i + 4]
            i += 4
        elif wt == 2:
            n, i = varint(b, i)
            v = bytes(b[i:i + n])
            i += n
        else:
            raise ValueError('wire type %d' % wt)
        out.append((fn, wt, v))
    return out


def fields(b):
    d = {}
    for fn, wt, v in parse(b):
        d.setdefault(fn, []).append((wt, v))
    return d


def packed_varints(v):
    out = []
    i = 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def first(d, n, default=None):
    return d[n][0][1] if n in d else default


def repeated_ints(d, n):
    out = []
    for wt, v in d.get(n, []):
        out += packed_varints(v) if wt == 2 else [v]
    return out


CE_NAMES = {1: 'flat', 2: 'variable', 3: 'constant', 4: 'out_of_line_bitpacking',
            5: 'inline_bitpacking', 6: 'fsst', 7: 'dictionary', 8: 'rle', 9: 'byte_stream_split',
            10: 'general', 11: 'fixed_size_list', 12: 'packed_struct', 13: 'variable_packed_struct'}


def describe(ce):
    """A compact description of a CompressiveEncoding, e.g. fsst(variable(flat(32)))."""
    f = parse(ce)
    if not f:
        return '-'
    fn, _, v = f[0]
    name = CE_NAMES.get(fn, '?%d' % fn)
    sub = fields(v)
    if name == 'flat':
        return 'flat(%d%s)' % (first(sub, 1, 0), ',c' if 2 in sub else '')
    if name == 'variable':
        return 'variable(%s)' % describe(first(sub, 1, b''))
    if name == 'constant':
        return 'constant'
    if name == 'out_of_line_bitpacking':
        return 'out_of_line_bitpacking(%d,%s)' % (first(sub, 1, 0), describe(first(sub, 3, b'')))
    if name == 'inline_bitpacking':
        return 'inline_bitpacking(%d)' % first(sub, 1, 0)
    if name == 'fsst':
        return 'fsst(%s)' % describe(first(sub, 2, b''))
    if name == 'dictionary':
        return 'dictionary(%s,%s)' % (describe(first(sub, 1, b'')), describe(first(sub, 2, b'')))
    if name == 'rle':
        return 'rle(%s,%s)' % (describe(first(sub, 1, b'')), describe(first(sub, 2, b'')))
    if name == 'byte_stream_split':
        return 'byte_stream_split(%s)' % describe(first(sub, 1, b''))
    if name == 'general':
        c = fields(first(sub, 1, b''))
        return 'general(%s,%s)' % ({1: 'lz4', 2: 'zstd'}.get(first(c, 1, 0), '?'),
                                   describe(first(sub, 3, b'')))
    if name == 'fixed_size_list':
        return 'fixed_size_list(%d,%s%s)' % (first(sub, 1, 0), 'v,' if first(sub, 3, 0) else '',
                                             describe(first(sub, 2, b'')))
    if name == 'packed_struct':
        return 'packed_struct(%s,%s)' % (repeated_ints(sub, 1), describe(first(sub, 2, b'')))
    if name == 'variable_packed_struct':
        parts = []
        for _, fv in sub.get(1, []):
            ff = fields(fv)
            parts.append(describe(first(ff, 1, b'')))
        return 'variable_packed_struct(%s)' % ','.join(parts)
    return name


# --- Lance file reading ----------------------------------------------------------------


def read_pages(path):
    """[(column index, page length, layout bytes, [page buffers])] of a v2.x data file."""
    b = open(path, 'rb').read()
    assert b[-4:] == b'LANC'
    _, cmo_start, _, _, ncol, major, minor = struct.unpack_from('<QQQIIHH', b, len(b) - 40)
    pages = []
    for c in range(ncol):
        p, n = struct.unpack_from('<QQ', b, cmo_start + 16 * c)
        cm = fields(b[p:p + n])
        for _, pv in cm.get(2, []):
            pf = fields(pv)
            offs = repeated_ints(pf, 1)
            sizes = repeated_ints(pf, 2)
            enc = fields(first(pf, 4))
            direct = fields(first(enc, 2))
            anyf = fields(first(direct, 1))
            assert first(anyf, 1).decode() == '/lance.encodings21.PageLayout', first(anyf, 1)
            pages.append((c, first(pf, 3, 0), first(anyf, 2, b''),
                          [b[o:o + s] for o, s in zip(offs, sizes)]))
    return (major, minor), pages


def pad8(x):
    return (x + 7) // 8 * 8


def b64(x):
    return base64.b64encode(bytes(x)).decode()


def split_miniblock(layout, bufs):
    """Cuts a mini-block page into chunks: [{num_levels, rep, def, buffers, num_values}]."""
    mb = fields(layout)
    has_rep = 1 in mb
    has_def = 2 in mb
    nbuf = first(mb, 7, 0)
    num_items = first(mb, 9, 0)
    large = bool(first(mb, 10, 0))
    meta, data = bufs[0], bufs[1]
    wsize = 4 if large else 2
    words = struct.unpack_from('<%d%s' % (len(meta) // wsize, 'I' if large else 'H'), meta, 0)
    chunks = []
    pos = 0
    seen = 0
    for i, w in enumerate(words):
        nbytes = ((w >> 4) + 1) * 8
        lg = w & 0xF
        n = (num_items - seen) if (i == len(words) - 1 and lg == 0) else (1 << lg)
        c = data[pos:pos + nbytes]
        off = 0
        nlev = struct.unpack_from('<H', c, off)[0]
        off += 2
        rs = ds = 0
        if has_rep:
            rs = struct.unpack_from('<H', c, off)[0]
            off += 2
        if has_def:
            ds = struct.unpack_from('<H', c, off)[0]
            off += 2
        sizes = list(struct.unpack_from('<%d%s' % (nbuf, 'I' if large else 'H'), c, off))
        off = pad8(off + nbuf * (4 if large else 2))
        rep = dfn = None
        if has_rep:
            rep = c[off:off + rs]
            off = pad8(off + rs)
        if has_def:
            dfn = c[off:off + ds]
            off = pad8(off + ds)
        vb = []
        for s in sizes:
            vb.append(c[off:off + s])
            off = pad8(off + s)
        chunks.append(dict(num_levels=nlev, rep=rep, dfn=dfn, buffers=vb, num_values=n))
        pos += nbytes
        seen += n
    return mb, chunks


def layout_kind(layout_bytes):
    f = parse(layout_bytes)
    return {1: 'mini_block', 2: 'constant', 3: 'full_zip', 4: 'blob'}[f[0][0]], f[0][2]


# --- expected values from Arrow --------------------------------------------------------


def fixed_expect(values, fmt, bits):
    return {'kind': 'fixed', 'bits': bits,
            'data': b64(b''.join(struct.pack('<' + fmt, v) for v in values))}


def bool_expect(values):
    bm = bytearray((len(values) + 7) // 8)
    for i, v in enumerate(values):
        if v:
            bm[i // 8] |= 1 << (i % 8)
    return {'kind': 'fixed', 'bits': 1, 'data': b64(bm)}


def var_expect(values):
    vals = [v.encode() if isinstance(v, str) else v for v in values]
    return {'kind': 'variable', 'lengths': [len(v) for v in vals], 'data': b64(b''.join(vals))}


def mask_b64(valid):
    bm = bytearray((len(valid) + 7) // 8)
    for i, v in enumerate(valid):
        if v:
            bm[i // 8] |= 1 << (i % 8)
    return b64(bm)


FMT = {pa.int8(): ('b', 8), pa.uint8(): ('B', 8), pa.int16(): ('h', 16), pa.uint16(): ('H', 16),
       pa.int32(): ('i', 32), pa.uint32(): ('I', 32), pa.int64(): ('q', 64),
       pa.uint64(): ('Q', 64), pa.float32(): ('f', 32), pa.float64(): ('d', 64)}


def expect_for(arr):
    """Expected decoded values (physical form) of a flat Arrow array; nulls become 0/empty
    and are masked out of the comparison."""
    t = arr.type
    vals = arr.to_pylist()
    valid = [v is not None for v in vals]
    if t in FMT:
        fmt, bits = FMT[t]
        e = fixed_expect([0 if v is None else v for v in vals], fmt, bits)
    elif t == pa.bool_():
        e = bool_expect([bool(v) for v in vals])
    elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or \
            pa.types.is_large_binary(t):
        e = var_expect([b'' if v is None else v for v in vals])
    else:
        raise ValueError(t)
    if not all(valid):
        e['valid'] = mask_b64(valid)
    return e


# --- cases -----------------------------------------------------------------------------

CASES = []


def case(name, versions=('2.1', '2.2')):
    def wrap(fn):
        CASES.append((name, versions, fn))
        return fn
    return wrap


def col(name, arr, md=None, nullable=True):
    return pa.table({name: arr}).cast(pa.schema([pa.field(name, arr.type, nullable, metadata=md)]))


rng = random.Random(20261201)


def words(n, lo=3, hi=30, alphabet=string.ascii_lowercase):
    return [''.join(rng.choice(alphabet) for _ in range(rng.randrange(lo, hi))) for _ in range(n)]


def sentences(n, lo=3, hi=12):
    vocab = words(300, 2, 9)
    return [' '.join(rng.choice(vocab) for _ in range(rng.randrange(lo, hi))) for _ in range(n)]


@case('ibp8')
def _():
    return col('v', pa.array([i % 16 for i in range(2500)], pa.int8())), 'inline_bitpacking(8)'


@case('ibp16')
def _():
    return col('v', pa.array([(i * 37) % 256 for i in range(2100)], pa.uint16())), \
        'inline_bitpacking(16)'


@case('ibp32')
def _():
    return col('v', pa.array(list(range(3000)), pa.int32())), 'inline_bitpacking(32)'


@case('negative_full_width')
def _():
    # Negative values need every bit: Lance falls back to flat.
    return col('v', pa.array([(i % 50) - 25 for i in range(1500)], pa.int32())), 'flat(32)'


@case('ibp64')
def _():
    return col('v', pa.array([i * 1234567 for i in range(1030)], pa.int64())), \
        'inline_bitpacking(64)'


@case('ibp32_float')
def _():
    return col('v', pa.array([float(i % 7) for i in range(1024)], pa.float32())), \
        'inline_bitpacking(32)'


@case('ibp32_single')
def _():
    return col('v', pa.array([5] * 1 + [9] * 1, pa.int32())), None


@case('flat8')
def _():
    return col('v', pa.array([rng.randrange(256) for _ in range(3000)], pa.uint8())), 'flat(8)'


@case('flat16')
def _():
    return col('v', pa.array([rng.randrange(-30000, 30000) for _ in range(2000)], pa.int16())), \
        'flat(16)'


@case('flat64')
def _():
    return col('v', pa.array([rng.randrange(-2**63, 2**63) for _ in range(1500)], pa.int64())), \
        'flat(64)'


@case('flat_bool')
def _():
    return col('v', pa.array([rng.random() < 0.3 for _ in range(5000)])), 'flat(1)'


@case('flat_none')
def _():
    return general(pa.array(list(range(2000)), pa.int32()), 'none'), 'flat(32)'


@case('rle8')
def _():
    return col('v', pa.array([i // 700 for i in range(5000)], pa.uint8())), \
        'rle(flat(8),flat(8))'


@case('rle16')
def _():
    return col('v', pa.array([(i // 40) * 100 for i in range(5000)], pa.int16())), \
        'rle(flat(16),flat(8))'


@case('rle32')
def _():
    return col('v', pa.array([i // 300 - 7 for i in range(9000)], pa.int32())), \
        'rle(flat(32),flat(8))'


@case('rle64')
def _():
    return col('v', pa.array([(i // 90) * 10**12 for i in range(5000)], pa.int64()),
               {'lance-encoding:dict-divisor': '1000000'}), \
        'rle(flat(64),flat(8))'


@case('rle_float64')
def _():
    return col('v', pa.array([float(i // 1000) + 0.5 for i in range(4000)], pa.float64()),
               {'lance-encoding:dict-divisor': '1000000'}), \
        'rle(flat(64),flat(8))'


@case('variable32')
def _():
    vals = [w.encode() for w in words(1200, 0, 40)]
    return col('v', pa.array(vals, pa.binary())), 'variable(flat(32))'


@case('variable64')
def _():
    vals = [w.encode() for w in words(1000, 0, 40)]
    return col('v', pa.array(vals, pa.large_binary())), 'variable(flat(64))'


@case('variable_short_strings_nulls')
def _():
    vals = [None if i % 7 == 3 else ['ab', 'c', ''][i % 3] for i in range(2000)]
    return col('v', pa.array(vals, pa.string())), 'variable(flat(32))'


@case('fsst32')
def _():
    return col('v', pa.array(sentences(900), pa.string())), 'fsst(variable(flat(32)))'


@case('fsst64')
def _():
    return col('v', pa.array(sentences(900), pa.large_string())), 'fsst(variable(flat(64)))'


# Distinct enough to skip the dictionary (32-bit values never get one), repetitive
# enough for zstd/lz4; BSS off so that the inner encoding is the plain one.
def periodic(n, base):
    return pa.array([base + (i % 512) * 1000 for i in range(n)], pa.uint32())


def general(arr, compression, **encoding):
    """Column v of arr, compressed with `compression` (lance-encoding:compression); each
    keyword sets lance-encoding:<key with - for _> too (bss='off', ...)."""
    md = {'lance-encoding:compression': compression}
    md.update({'lance-encoding:' + k.replace('_', '-'): v for k, v in encoding.items()})
    return col('v', arr, md)


@case('general_zstd_ibp')
def _():
    return general(periodic(4096, 300000), 'zstd', bss='off'), \
        'general(zstd,inline_bitpacking(32))'


@case('general_zstd_level')
def _():
    return general(periodic(4096, 300000), 'zstd', bss='off', compression_level='9'), \
        'general(zstd,inline_bitpacking(32))'


@case('general_zstd_flat')
def _():
    return general(periodic(4096, 2**31), 'zstd', bss='off'), \
        'general(zstd,flat(32))'


@case('general_lz4_flat')
def _():
    return general(periodic(4096, 2**31), 'lz4', bss='off'), \
        'general(lz4,flat(32))'


@case('general_zstd_variable')
def _():
    vals = [('item-%06d' % i).encode() for i in range(1000)]
    return general(pa.array(vals, pa.binary()), 'zstd'), \
        'general(zstd,variable(flat(32)))'


@case('general_lz4_variable')
def _():
    vals = [('item-%06d' % i).encode() for i in range(1000)]
    return general(pa.array(vals, pa.binary()), 'lz4'), \
        'general(lz4,variable(flat(32)))'


@case('bss32')
def _():
    vals = [1000.0 + rng.random() for _ in range(3000)]
    return general(pa.array(vals, pa.float32()), 'zstd', bss='on'), \
        'general(zstd,byte_stream_split(flat(32)))'


@case('bss64')
def _():
    vals = [1000.0 + rng.random() for _ in range(1500)]
    return general(pa.array(vals, pa.float64()), 'lz4', bss='on'), \
        'general(lz4,byte_stream_split(flat(64)))'


def fsl(items, size, nullable=True):
    """Column v: a fixed_size_list of `size` of `items`."""
    return col('v', pa.FixedSizeListArray.from_arrays(items, size), nullable=nullable)


def random_fsl(rows, size):
    """fsl() of `rows` lists of `size` random float32 values."""
    return fsl(pa.array([rng.random() for _ in range(rows * size)], pa.float32()), size)


@case('fsl8')
def _():
    return random_fsl(300, 8), 'fixed_size_list(8,flat(32))'


@case('fsl_item_nulls')
def _():
    items = pa.array([None if i % 5 == 2 else float(i) for i in range(300 * 4)], pa.float64())
    return fsl(items, 4), 'fixed_size_list(4,v,flat(64))'


@case('fsl_nested')
def _():
    items = pa.array([None if i % 11 == 0 else i for i in range(200 * 6)], pa.int16())
    inner = pa.FixedSizeListArray.from_arrays(items, 2)
    return fsl(inner, 3), None


@case('fsl_bool')
def _():
    items = pa.array([i % 3 == 0 for i in range(400 * 5)])
    return fsl(items, 5), 'fixed_size_list(5,flat(1))'


@case('packed_struct')
def _():
    n = 700
    arr = pa.StructArray.from_arrays(
        [pa.array(list(range(n)), pa.int32()), pa.array([i * 3 for i in range(n)], pa.int64()),
         pa.array([i % 256 for i in range(n)], pa.uint8())], names=['a', 'b', 'c'])
    return col('v', arr, {'lance-encoding:packed': 'true'}), 'packed_struct([32, 64, 8],flat(104))'


@case('dict_strings')
def _():
    vals = [rng.choice(['apple', 'banana', 'cherry', 'durian', 'elderberry']) for _ in range(3000)]
    return col('v', pa.array(vals)), None


@case('dict_big_strings')
def _():
    pool = words(150, 20, 60)
    vals = [rng.choice(pool) for _ in range(1500)]
    return col('v', pa.array(vals)), None


@case('dict_int64')
def _():
    pool = [rng.randrange(-2**62, 2**62) for _ in range(40)]
    return col('v', pa.array([rng.choice(pool) for _ in range(2000)], pa.int64())), None


@case('dict_int64_zstd_values', versions=('2.2',))
def _():
    pool = [rng.randrange(-2**62, 2**62) for _ in range(300)]
    return col('v', pa.array([rng.choice(pool) for _ in range(8000)], pa.int64()),
               {'lance-encoding:dict-values-compression': 'zstd'}), None


@case('dict_float64_rle_indices', versions=('2.2',))
def _():
    return col('v', pa.array([float(i // 90) for i in range(5000)], pa.float64())), None


@case('nullable_int32')
def _():
    vals = [None if i % 9 == 4 else i * 3 for i in range(3000)]
    return col('v', pa.array(vals, pa.int32())), 'inline_bitpacking(32)'


@case('nullable_small')
def _():
    # At most 1024 levels in the page: inline bit-packed levels.
    vals = [None if i % 6 == 1 else i for i in range(1000)]
    return col('v', pa.array(vals, pa.int32())), None


@case('nullable_tiny')
def _():
    # Too few levels for bit-packing to pay: flat levels.
    vals = [None if i % 3 == 1 else i for i in range(10)]
    return col('v', pa.array(vals, pa.int32())), None


@case('all_null_lists')
def _():
    vals = [[None] * (i % 3) if i % 5 else None for i in range(3000)]
    return col('v', pa.array(vals, pa.list_(pa.int32()))), None


@case('nullable_runs')
def _():
    vals = [None if (i // 500) % 2 else i for i in range(6000)]
    return col('v', pa.array(vals, pa.int32())), None


@case('list_int32')
def _():
    vals = [None if i % 13 == 5 else list(range(i % 7)) for i in range(3000)]
    return col('v', pa.array(vals, pa.list_(pa.int32()))), None


@case('fullzip_fsl128')
def _():
    return random_fsl(30, 128), 'fixed_size_list(128,flat(32))'


@case('fullzip_fsl_item_nulls')
def _():
    items = pa.array([None if i % 17 == 1 else rng.random() for i in range(50 * 100)],
                     pa.float32())
    return fsl(items, 100), 'fixed_size_list(100,v,flat(32))'


@case('fullzip_fsl_all_null_items')
def _():
    items = pa.array([None] * (40 * 70), pa.float32())
    return fsl(items, 70, nullable=False), None


@case('fullzip_int32')
def _():
    return col('v', pa.array(list(range(500)), pa.int32()),
               {'lance-encoding:structural-encoding': 'fullzip'}), 'flat(32)'


@case('fullzip_variable')
def _():
    vals = [('x' * rng.randrange(250, 400)).encode() + bytes([i % 256]) for i in range(60)]
    return col('v', pa.array(vals, pa.binary())), 'variable(flat(32))'


@case('fullzip_variable64')
def _():
    vals = [('y' * rng.randrange(250, 400)).encode() + bytes([i % 256]) for i in range(60)]
    return col('v', pa.array(vals, pa.large_binary())), 'variable(flat(64))'


@case('fullzip_fsst')
def _():
    vals = [' '.join(sentences(40)) for _ in range(22)]
    return col('v', pa.array(vals, pa.string())), 'fsst(variable(flat(32)))'


@case('fullzip_fsst_nulls')
def _():
    vals = [None if i % 4 == 1 else ' '.join(sentences(40)) for i in range(30)]
    return col('v', pa.array(vals, pa.string())), 'fsst(variable(flat(32)))'


@case('fullzip_general_zstd')
def _():
    vals = [(w * 2800).encode() for w in words(2, 12, 16)]
    return col('v', pa.array(vals, pa.binary())), 'general(zstd,variable(flat(32)))'


@case('fullzip_general_requested')
def _():
    vals = [(w * 30).encode() for w in words(100, 8, 16)]
    return general(pa.array(vals, pa.binary()), 'zstd', structural_encoding='fullzip'), \
        'general(zstd,variable(flat(32)))'


@case('variable_packed_struct', versions=('2.2',))
def _():
    n = 300
    arr = pa.StructArray.from_arrays(
        [pa.array(list(range(n)), pa.int32()),
         pa.array([('name-%d-' % i) * (i % 5) for i in range(n)], pa.string()),
         pa.array([i * 0.5 for i in range(n)], pa.float64())], names=['a', 'b', 'c'])
    return col('v', arr, {'lance-encoding:packed': 'true'}), None


# --- extraction --------------------------------------------------------------------------


def leaf_arrays(arr):
    """The leaf columns of an Arrow array in Lance's column order."""
    t = arr.type
    if pa.types.is_struct(t) and not getattr(arr, '_packed', False):
        out = []
        for i in range(t.num_fields):
            out += leaf_arrays(arr.field(i))
        return out
    return [arr]


def chunk_entries(chunks):
    return [{'num_values': c['num_values'], 'buffers': [b64(x) for x in c['buffers']]}
            for c in chunks]


def levels_of_chunks(mb, chunks, which):
    """Block cases for the rep (1) or def (2) levels of every chunk."""
    enc = first(mb, which)
    out = []
    for i, c in enumerate(chunks):
        data = c['rep'] if which == 1 else c['dfn']
        out.append({'encoding': enc.hex(), 'buffer': b64(data), 'num_values': c['num_levels']})
    return out


def expected_levels(arr):
    """Definition levels (0 valid, 1 null) of a flat nullable array."""
    return [0 if v is not None else 1 for v in arr.to_pylist()]


MISMATCHES = []


def check_want(name, version, ci, got, want):
    if want and ci == 0 and got != want:
        MISMATCHES.append((name, version, got, want))


def extract(name, version, tbl, want):
    tmp = tempfile.mkdtemp(prefix='codec_golden_')
    try:
        lance.write_dataset(tbl, os.path.join(tmp, 'ds'), data_storage_version=version)
        files = sorted(glob.glob(os.path.join(tmp, 'ds', 'data', '*.lance')))
        assert len(files) == 1, files
        _, pages = read_pages(files[0])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    field = tbl.schema.field(0)
    arr = tbl.column(0).combine_chunks()
    is_packed = (field.metadata or {}).get(b'lance-encoding:packed') == b'true'
    out = []
    assert len(pages) >= 1
    cols = sorted(set(p[0] for p in pages))
    if len(cols) > 1 and not is_packed:
        leaves = leaf_arrays(arr)
    else:
        leaves = [arr]
    for (ci, length, layout, bufs) in pages:
        kind, lb = layout_kind(layout)
        leaf = leaves[ci] if ci < len(leaves) else arr
        entry = {'name': '%s/col%d' % (name, ci), 'version': version}
        if kind == 'mini_block':
            mb, chunks = split_miniblock(lb, bufs)
            vc = first(mb, 3)
            entry['encoding'] = vc.hex()
            entry['describe'] = describe(vc)
            check_want(name, version, ci, entry['describe'], want)
            has_rep = 1 in mb
            entry['context'] = 'miniblock'
            entry['chunks'] = chunk_entries(chunks)
            if 4 in mb:
                # The page dictionary: a block of num_dictionary_items values; the chunks
                # hold indices into it.
                dict_enc = first(mb, 4)
                ndict = first(mb, 5, 0)
                entry['dictionary'] = {'encoding': dict_enc.hex(), 'describe': describe(dict_enc),
                                       'buffer': b64(bufs[2]), 'num_values': ndict}
            if not has_rep:
                if pa.types.is_fixed_size_list(leaf.type):
                    entry['expect'] = fsl_expect(leaf)
                elif pa.types.is_struct(leaf.type):
                    entry['expect'] = {'kind': 'struct', 'children': [
                        expect_for(leaf.field(i)) for i in range(leaf.type.num_fields)]}
                else:
                    e = expect_for(leaf)
                    if 4 in mb:
                        entry['dictionary_expect'] = e
                    else:
                        entry['expect'] = e
            if 2 in mb:
                levels = levels_of_chunks(mb, chunks, 2)
                for j, lv in enumerate(levels):
                    sub = {'name': '%s/col%d/def%d' % (name, ci, j), 'version': version,
                           'context': 'block', 'encoding': lv['encoding'],
                           'describe': describe(bytes.fromhex(lv['encoding'])),
                           'buffer': lv['buffer'], 'num_values': lv['num_values']}
                    if not has_rep and not pa.types.is_fixed_size_list(leaf.type):
                        start = sum(c['num_values'] for c in chunks[:j])
                        lvls = expected_levels(leaf)[start:start + chunks[j]['num_values']]
                        sub['expect'] = fixed_expect(lvls, 'H', 16)
                    out.append(sub)
            if has_rep:
                for j, lv in enumerate(levels_of_chunks(mb, chunks, 1)):
                    out.append({'name': '%s/col%d/rep%d' % (name, ci, j), 'version': version,
                                'context': 'block', 'encoding': lv['encoding'],
                                'describe': describe(bytes.fromhex(lv['encoding'])),
                                'buffer': lv['buffer'], 'num_values': lv['num_values']})
        elif kind == 'full_zip':
            fz = fields(lb)
            vc = first(fz, 7)
            entry['encoding'] = vc.hex()
            entry['describe'] = describe(vc)
            check_want(name, version, ci, entry['describe'], want)
            bits_rep = first(fz, 1, 0)
            bits_def = first(fz, 2, 0)
            assert bits_rep == 0, 'full-zip with repetition is not extracted'
            cw = 0 if bits_def == 0 else (1 if bits_def <= 8 else 2 if bits_def <= 16 else 4)
            data = bufs[0]
            n = first(fz, 5, 0)
            if 3 in fz:
                bpv = first(fz, 3)
                entry['context'] = 'fixed_per_value'
                entry['bits_per_value'] = bpv
                vals = b''
                pos = 0
                for _ in range(n):
                    pos += cw
                    vals += data[pos:pos + bpv // 8]
                    pos += bpv // 8
                entry['data'] = b64(vals)
                entry['num_values'] = n
                if pa.types.is_fixed_size_list(leaf.type):
                    entry['expect'] = fsl_expect(leaf)
                else:
                    entry['expect'] = expect_for(leaf)
            else:
                bpo = first(fz, 4)
                entry['context'] = 'variable_per_value'
                entry['offset_bits'] = bpo
                offsets = [0]
                vals = b''
                pos = 0
                valid = []
                for _ in range(n):
                    ctl = int.from_bytes(data[pos:pos + cw], 'little') if cw else 0
                    pos += cw
                    if ctl == 0:
                        ln = int.from_bytes(data[pos:pos + bpo // 8], 'little')
                        pos += bpo // 8
                        vals += data[pos:pos + ln]
                        pos += ln
                    valid.append(ctl == 0)
                    offsets.append(len(vals))
                assert pos == len(data), (pos, len(data))
                entry['offsets'] = offsets
                entry['data'] = b64(vals)
                entry['num_values'] = n
                if pa.types.is_struct(leaf.type):
                    entry['expect'] = {'kind': 'struct', 'children': [
                        expect_for(leaf.field(i)) for i in range(leaf.type.num_fields)]}
                else:
                    entry['expect'] = expect_for(leaf)
        elif kind == 'constant':
            cl = fields(lb)
            entry['context'] = 'constant_layout'
            entry['describe'] = 'constant layout'
            for fn, what in ((7, 'rep'), (8, 'def')):
                if fn in cl:
                    out.append({'name': '%s/col%d/%s' % (name, ci, what), 'version': version,
                                'context': 'block', 'encoding': first(cl, fn).hex(),
                                'describe': describe(first(cl, fn)),
                                'buffer': b64(bufs[0 if fn == 7 or 7 not in cl else 1]),
                                'num_values': first(cl, 9 if fn == 7 else 10, 0)})
            continue
        else:
            continue
        out.append(entry)
    return out


def fsl_expect(arr):
    """Expected items (flattened, all FSL layers) and the validity of each layer's items."""
    t = arr.type
    layers = []
    cur = arr
    while pa.types.is_fixed_size_list(cur.type):
        flat = cur.flatten() if hasattr(cur, 'flatten') else cur.values
        layers.append({'dimension': cur.type.list_size,
                       'validity': mask_b64([v is not None for v in flat.to_pylist()])
                       if flat.null_count else None})
        cur = flat
    e = {'kind': 'fsl', 'layers': layers, 'items': expect_for(cur)}
    e['items'].pop('valid', None)
    return e


def main():
    only = set(sys.argv[1:])
    os.makedirs(OUT_DIR, exist_ok=True)
    for version in ('2.1', '2.2'):
        entries = []
        for name, versions, fn in CASES:
            if version not in versions or (only and name not in only):
                continue
            tbl, want = fn()
            got = extract(name, version, tbl, want)
            for g in got:
                print(version, g['name'], g.get('context'), g.get('describe'))
            entries += got
        # Stored as one zstd frame (the C++ test decompresses it with the codecs).
        path = os.path.join(OUT_DIR, 'golden_v%s.json.zst' % version.replace('.', '_'))
        text = json.dumps({'generator': 'tests/format/codecs/gen_codec_golden.py',
                           'pylance': lance.__version__, 'file_version': version,
                           'cases': entries}, indent=0, sort_keys=True).encode()
        with open(path, 'wb') as f:
            f.write(pa.Codec('zstd', compression_level=19).compress(text, asbytes=True))
        print('wrote', path, os.path.getsize(path), 'bytes')
    for m in MISMATCHES:
        print('UNEXPECTED ENCODING', m)
    if MISMATCHES:
        sys.exit(1)


if __name__ == '__main__':
    main()
