/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The .axm container (layout in docs/sim-npu.md). Little-endian, fixed
 * size records, every section located by the section table. The reader
 * trusts nothing: each field is range-checked before use, sizes are
 * checked against the file before any allocation, and sections may not
 * overlap. */

#include "axfile.h"
#include "format-private.h"
#include "ir/ir.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#if G_BYTE_ORDER != G_LITTLE_ENDIAN
#error "the .axm reader and writer assume a little-endian host"
#endif

#define HEADER_BYTES 64
#define SECTION_BYTES 24
#define TENSOR_BYTES 80
#define OP_BYTES 152
#define ACTION_BYTES 48
#define PREPROCESS_BYTES 44
/* per postamble output: u32 dtype, f32 scale, i32 zero point */
#define POSTAMBLE_QUANT_BYTES 12
#define SECTION_ALIGN 8
#define NO_DATA G_MAXUINT64
#define FLAG_ESTIMATE_ONLY 1u
#define MAX_ACTION_NS (G_GUINT64_CONSTANT (10) * SIMNPU_NS_PER_S)
#define MAX_ACTIONS (4 * SIMNPU_MAX_OPS + 2 * SIMNPU_MAX_IO + 1)

enum
{
  SEC_STRINGS = 1,
  SEC_TENSORS,
  SEC_OPS,
  SEC_IO,
  SEC_DATA,
  SEC_SCHEDULE,
  SEC_LABELS,
  /* optional, since 1.2 */
  SEC_PREAMBLE,
  SEC_POSTAMBLE,
  SEC_PREPROCESS,
  SEC_DECODER,
  /* optional, since 1.3 */
  SEC_POSTAMBLE_QUANT,
  N_SECTIONS = SEC_POSTAMBLE_QUANT
};

/* version 1.0 files end with the schedule section, 1.1 files with the
 * labels; from 1.2 on the sections after the labels may be absent */
#define N_SECTIONS_V1_0 SEC_SCHEDULE
#define N_SECTIONS_V1_1 SEC_LABELS
#define N_SECTIONS_V1_2 SEC_DECODER
#define N_REQUIRED_SECTIONS SEC_LABELS
#define LABELS_MINOR 1
#define HOST_SECTIONS_MINOR 2

static const char *const section_names[] = {
  "", "strings", "tensors", "ops", "io", "data", "schedule", "labels",
  "preamble", "postamble", "preprocess", "decoder", "postamble-quant"
};

/* ------------------------------------------------------------------ */
/* Writer                                                               */

typedef struct
{
  GByteArray *strings;
  GByteArray *data;
} writer;

static uint32_t
add_string (writer * w, const char *s)
{
  uint32_t off = w->strings->len;
  g_byte_array_append (w->strings, (const guint8 *) (s ? s : ""),
      (guint) strlen (s ? s : "") + 1);
  return off;
}

static uint64_t
add_data (writer * w, const void *p, size_t n)
{
  uint64_t off;
  static const guint8 zeros[SECTION_ALIGN] = { 0 };

  if (p == NULL)
    return NO_DATA;
  off = w->data->len;
  g_byte_array_append (w->data, p, (guint) n);
  g_byte_array_append (w->data, zeros, (SECTION_ALIGN - n % SECTION_ALIGN)
      % SECTION_ALIGN);
  return off;
}

static void
put (guint8 * dst, size_t *pos, const void *src, size_t n)
{
  memcpy (dst + *pos, src, n);
  *pos += n;
}

GByteArray *
simnpu__axm_serialize (const simnpu__graph * g, const simnpu__schedule * s)
{
  writer w;
  guint8 *tensors, *ops, *io, *sched, *labels, *header;
  guint8 preprocess[PREPROCESS_BYTES];
  guint8 post_quant[SIMNPU_MAX_IO * POSTAMBLE_QUANT_BYTES];
  uint16_t minor = SIMNPU_AXM_VERSION_MINOR;
  GByteArray *file, *preamble = NULL, *postamble = NULL;
  size_t sizes[N_SECTIONS + 1], offsets[N_SECTIONS + 1];
  guint8 *blobs[N_SECTIONS + 1];
  unsigned present[N_SECTIONS], n_present = 0;
  uint32_t name_str, spec_str, flags, u32;
  uint64_t total;
  unsigned i, k;

  w.strings = g_byte_array_new ();
  w.data = g_byte_array_new ();
  name_str = add_string (&w, g->name);
  spec_str = add_string (&w, s->spec);

  tensors = g_malloc0 ((size_t) g->n_tensors * TENSOR_BYTES);
  for (i = 0; i < g->n_tensors; i++) {
    const simnpu__tensor *t = &g->tensors[i];
    guint8 *r = tensors + (size_t) i * TENSOR_BYTES;
    size_t pos = 0;
    uint8_t b;
    uint64_t off, bytes, soff;
    u32 = add_string (&w, t->name);
    put (r, &pos, &u32, 4);
    b = (uint8_t) t->dtype;
    put (r, &pos, &b, 1);
    b = (uint8_t) t->io_dtype;
    put (r, &pos, &b, 1);
    b = (uint8_t) t->layout;
    put (r, &pos, &b, 1);
    b = (uint8_t) t->kind;
    put (r, &pos, &b, 1);
    put (r, &pos, &t->n_dims, 4);
    put (r, &pos, &t->n_channel_scales, 4);
    put (r, &pos, t->dims, 4 * 8);
    put (r, &pos, &t->scale, 4);
    put (r, &pos, &t->zero_point, 4);
    off = add_data (&w, t->data, t->data_bytes);
    bytes = t->data ? t->data_bytes : 0;
    soff = t->n_channel_scales ? add_data (&w, t->channel_scales,
        t->n_channel_scales * sizeof (float)) : NO_DATA;
    put (r, &pos, &off, 8);
    put (r, &pos, &bytes, 8);
    put (r, &pos, &soff, 8);
  }
  ops = g_malloc0 ((size_t) g->n_ops * OP_BYTES);
  for (i = 0; i < g->n_ops; i++) {
    const simnpu__op *op = &g->ops[i];
    guint8 *r = ops + (size_t) i * OP_BYTES;
    size_t pos = 0;
    u32 = op->type;
    put (r, &pos, &u32, 4);
    u32 = add_string (&w, op->name);
    put (r, &pos, &u32, 4);
    u32 = add_string (&w, op->location);
    put (r, &pos, &u32, 4);
    put (r, &pos, &op->n_inputs, 4);
    put (r, &pos, &op->n_outputs, 4);
    put (r, &pos, op->inputs, 4 * SIMNPU_MAX_OP_INPUTS);
    put (r, &pos, op->outputs, 4 * SIMNPU_MAX_OP_OUTPUTS);
    put (r, &pos, op->attrs, 4 * SIMNPU_N_ATTRS);
  }
  io = g_malloc0 ((size_t) (g->n_inputs + g->n_outputs) * 4);
  memcpy (io, g->inputs, g->n_inputs * 4);
  memcpy (io + g->n_inputs * 4, g->outputs, g->n_outputs * 4);
  sched = g_malloc0 ((size_t) s->n_actions * ACTION_BYTES);
  for (i = 0; i < s->n_actions; i++) {
    const simnpu__action *a = &s->actions[i];
    guint8 *r = sched + (size_t) i * ACTION_BYTES;
    size_t pos = 0;
    u32 = a->kind;
    put (r, &pos, &u32, 4);
    put (r, &pos, &a->resource, 4);
    put (r, &pos, &a->op_index, 4);
    put (r, &pos, &a->dep, 4);
    put (r, &pos, &a->dep2, 4);
    pos += 4;
    put (r, &pos, &a->bytes, 8);
    put (r, &pos, &a->cycles, 8);
    put (r, &pos, &a->device_ns, 8);
  }

  /* labels: a string offset each, class 0 first */
  labels = g_malloc0 ((size_t) MAX (g->n_labels, 1) * 4);
  for (i = 0; i < g->n_labels; i++) {
    u32 = add_string (&w, g->labels[i]);
    memcpy (labels + (size_t) i * 4, &u32, 4);
  }

  blobs[SEC_STRINGS] = w.strings->data;
  sizes[SEC_STRINGS] = w.strings->len;
  blobs[SEC_TENSORS] = tensors;
  sizes[SEC_TENSORS] = (size_t) g->n_tensors * TENSOR_BYTES;
  blobs[SEC_OPS] = ops;
  sizes[SEC_OPS] = (size_t) g->n_ops * OP_BYTES;
  blobs[SEC_IO] = io;
  sizes[SEC_IO] = (size_t) (g->n_inputs + g->n_outputs) * 4;
  blobs[SEC_DATA] = w.data->data;
  sizes[SEC_DATA] = w.data->len;
  blobs[SEC_SCHEDULE] = sched;
  sizes[SEC_SCHEDULE] = (size_t) s->n_actions * ACTION_BYTES;
  blobs[SEC_LABELS] = labels;
  sizes[SEC_LABELS] = (size_t) g->n_labels * 4;
  for (i = 1; i <= N_REQUIRED_SECTIONS; i++)
    present[n_present++] = i;

  /* the optional sections, when the model has them */
  if (g->preamble) {
    preamble = g_byte_array_new ();
    simnpu__ir_serialize (g->preamble, preamble);
    blobs[SEC_PREAMBLE] = preamble->data;
    sizes[SEC_PREAMBLE] = preamble->len;
    present[n_present++] = SEC_PREAMBLE;
  }
  if (g->postamble) {
    postamble = g_byte_array_new ();
    simnpu__ir_serialize (g->postamble, postamble);
    blobs[SEC_POSTAMBLE] = postamble->data;
    sizes[SEC_POSTAMBLE] = postamble->len;
    present[n_present++] = SEC_POSTAMBLE;
  }
  if (g->has_preprocess) {
    const simnpu__preprocess *p = &g->preprocess;
    size_t pos = 0;
    u32 = p->color;
    put (preprocess, &pos, &u32, 4);
    u32 = p->resize;
    put (preprocess, &pos, &u32, 4);
    u32 = p->fill;
    put (preprocess, &pos, &u32, 4);
    put (preprocess, &pos, &p->scale, 4);
    put (preprocess, &pos, p->mean, 3 * 4);
    put (preprocess, &pos, p->std, 3 * 4);
    u32 = p->layout;
    put (preprocess, &pos, &u32, 4);
    blobs[SEC_PREPROCESS] = preprocess;
    sizes[SEC_PREPROCESS] = PREPROCESS_BYTES;
    present[n_present++] = SEC_PREPROCESS;
  }
  if (g->decoder) {
    blobs[SEC_DECODER] = (guint8 *) g->decoder;
    sizes[SEC_DECODER] = strlen (g->decoder);
    present[n_present++] = SEC_DECODER;
  }
  if (g->postamble && g->has_postamble_quant) {
    size_t pos = 0;
    for (k = 0; k < g->postamble->n_outputs && k < SIMNPU_MAX_IO; k++) {
      u32 = g->postamble_quant[k].dtype;
      put (post_quant, &pos, &u32, 4);
      put (post_quant, &pos, &g->postamble_quant[k].scale, 4);
      put (post_quant, &pos, &g->postamble_quant[k].zero_point, 4);
    }
    blobs[SEC_POSTAMBLE_QUANT] = post_quant;
    sizes[SEC_POSTAMBLE_QUANT] = pos;
    present[n_present++] = SEC_POSTAMBLE_QUANT;
    minor = SIMNPU_AXM_VERSION_MINOR_POSTAMBLE_QUANT;
  }

  total = HEADER_BYTES + (uint64_t) n_present *SECTION_BYTES;
  for (k = 0; k < n_present; k++) {
    i = present[k];
    total = (total + SECTION_ALIGN - 1) & ~(uint64_t) (SECTION_ALIGN - 1);
    offsets[i] = total;
    total += sizes[i];
  }
  file = g_byte_array_sized_new ((guint) total);
  g_byte_array_set_size (file, (guint) total);
  memset (file->data, 0, total);
  header = file->data;
  {
    size_t pos = 0;
    uint16_t v16;
    uint32_t n_sec = n_present, hb = HEADER_BYTES;
    put (header, &pos, SIMNPU_AXM_MAGIC, SIMNPU_AXM_MAGIC_BYTES);
    v16 = SIMNPU_AXM_VERSION_MAJOR;
    put (header, &pos, &v16, 2);
    put (header, &pos, &minor, 2);
    put (header, &pos, &hb, 4);
    put (header, &pos, &total, 8);
    put (header, &pos, &n_sec, 4);
    flags = g->estimate_only ? FLAG_ESTIMATE_ONLY : 0;
    put (header, &pos, &flags, 4);
    put (header, &pos, &name_str, 4);
    put (header, &pos, &spec_str, 4);
    put (header, &pos, &g->n_inputs, 4);
    put (header, &pos, &g->n_outputs, 4);
  }
  for (k = 0; k < n_present; k++) {
    size_t pos = HEADER_BYTES + k * SECTION_BYTES;
    uint32_t type, count;
    i = present[k];
    type = i;
    uint64_t off = offsets[i], bytes = sizes[i];
    switch (i) {
      case SEC_TENSORS:
        count = g->n_tensors;
        break;
      case SEC_OPS:
        count = g->n_ops;
        break;
      case SEC_IO:
        count = g->n_inputs + g->n_outputs;
        break;
      case SEC_SCHEDULE:
        count = s->n_actions;
        break;
      case SEC_LABELS:
        count = g->n_labels;
        break;
      case SEC_PREPROCESS:
        count = 1;
        break;
      case SEC_POSTAMBLE_QUANT:
        count = g->postamble->n_outputs;
        break;
      default:
        count = (uint32_t) sizes[i];
        break;
    }
    put (header, &pos, &type, 4);
    put (header, &pos, &count, 4);
    put (header, &pos, &off, 8);
    put (header, &pos, &bytes, 8);
    if (sizes[i] > 0)
      memcpy (file->data + offsets[i], blobs[i], sizes[i]);
  }
  g_byte_array_free (w.strings, TRUE);
  g_byte_array_free (w.data, TRUE);
  g_free (tensors);
  g_free (ops);
  g_free (io);
  g_free (sched);
  g_free (labels);
  if (preamble)
    g_byte_array_free (preamble, TRUE);
  if (postamble)
    g_byte_array_free (postamble, TRUE);
  return file;
}

int
simnpu__axm_write_data (const void *data, size_t size, const char *path,
    simnpu_error * error)
{
  GError *err = NULL;
  int ret = 0;

  /* a regular file is replaced atomically; /dev/null or a FIFO is
   * written into, never replaced by a regular file */
  if (!ax_file_write (path, data, (gsize) size, FALSE, &err)) {
    ret = simnpu__set_error (error, SIMNPU_EIO, "%s: %s", path, err->message);
    g_error_free (err);
  }
  return ret;
}

int
simnpu__axm_write (const simnpu__graph * g, const simnpu__schedule * s,
    const char *path, simnpu_error * error)
{
  GByteArray *file = simnpu__axm_serialize (g, s);
  int ret = simnpu__axm_write_data (file->data, file->len, path, error);

  g_byte_array_free (file, TRUE);
  return ret;
}

/* ------------------------------------------------------------------ */
/* Reader                                                               */

typedef struct
{
  const guint8 *base;
  size_t size;
  uint64_t off[N_SECTIONS + 1];
  uint64_t bytes[N_SECTIONS + 1];
  uint32_t count[N_SECTIONS + 1];
  simnpu_error *error;
} reader;

static uint32_t
rd32 (const guint8 * p)
{
  uint32_t v;
  memcpy (&v, p, 4);
  return v;
}

static uint64_t
rd64 (const guint8 * p)
{
  uint64_t v;
  memcpy (&v, p, 8);
  return v;
}

/* A format error naming the container field; the format is a literal. */
#define bad(r, field, format, ...) \
  simnpu__set_error ((r)->error, SIMNPU_EFORMAT, ".axm %s: " format, \
      (field), ##__VA_ARGS__)

/* A string at an offset of the strings section: NUL-terminated inside the
 * section and under SIMNPU_MAX_NAME_BYTES (model names, op names) or the
 * section size (spec, locations). */
static int
get_str (reader * r, uint32_t off, const char *field, char **out)
{
  const char *s = (const char *) r->base + r->off[SEC_STRINGS];
  uint64_t n = r->bytes[SEC_STRINGS];
  const char *nul;

  if (off >= n)
    return bad (r, field, "string offset %u outside the %" G_GUINT64_FORMAT
        "-byte strings section", off, (guint64) n);
  nul = memchr (s + off, '\0', n - off);
  if (nul == NULL)
    return bad (r, field, "string at offset %u is not NUL-terminated", off);
  if ((size_t) (nul - (s + off)) >= 4 * SIMNPU_MAX_NAME_BYTES)
    return bad (r, field, "string longer than %d bytes",
        4 * SIMNPU_MAX_NAME_BYTES);
  *out = g_strndup (s + off, nul - (s + off));
  return 0;
}

static int
read_sections (reader * r)
{
  const guint8 *h = r->base;
  uint32_t n_sec, hb, max_type;
  uint64_t file_bytes, table_end;
  unsigned i, j;
  uint16_t major, minor;

  if (r->size < HEADER_BYTES)
    return bad (r, "header", "file is %zu bytes; expected at least %d",
        r->size, HEADER_BYTES);
  if (memcmp (h, SIMNPU_AXM_MAGIC, SIMNPU_AXM_MAGIC_BYTES) != 0)
    return bad (r, "magic", "expected \"SNPUAXM\" (not a simnpu model)");
  memcpy (&major, h + 8, 2);
  memcpy (&minor, h + 10, 2);
  if (major != SIMNPU_AXM_VERSION_MAJOR)
    return simnpu__set_error (r->error, SIMNPU_EVERSION,
        ".axm version: %u.%u; expected %d.x (recompile the model)", major,
        minor, SIMNPU_AXM_VERSION_MAJOR);
  hb = rd32 (h + 12);
  if (hb != HEADER_BYTES)
    return bad (r, "header_bytes", "%u; expected %d", hb, HEADER_BYTES);
  file_bytes = rd64 (h + 16);
  if (file_bytes != r->size)
    return bad (r, "file_bytes", "%" G_GUINT64_FORMAT " but the file has "
        "%zu bytes (truncated or padded)", (guint64) file_bytes, r->size);
  n_sec = rd32 (h + 24);
  if (minor < HOST_SECTIONS_MINOR) {
    /* the sections up to the version's last, all present */
    max_type = minor < LABELS_MINOR ? N_SECTIONS_V1_0 : N_SECTIONS_V1_1;
    if (n_sec != max_type)
      return bad (r, "n_sections", "%u; expected %u for version %u.%u",
          n_sec, max_type, major, minor);
  } else {
    max_type = minor < SIMNPU_AXM_VERSION_MINOR_POSTAMBLE_QUANT ?
        N_SECTIONS_V1_2 : N_SECTIONS;
    if (n_sec < N_REQUIRED_SECTIONS || n_sec > max_type)
      return bad (r, "n_sections", "%u; expected %d to %u for version "
          "%u.%u", n_sec, N_REQUIRED_SECTIONS, max_type, major, minor);
  }
  table_end = HEADER_BYTES + (uint64_t) n_sec *SECTION_BYTES;
  if (table_end > r->size)
    return bad (r, "section table", "extends past the end of the file");
  for (i = 0; i < n_sec; i++) {
    const guint8 *e = h + HEADER_BYTES + i * SECTION_BYTES;
    uint32_t type = rd32 (e);
    uint64_t off = rd64 (e + 8), bytes = rd64 (e + 16);
    if (type < 1 || type > max_type)
      return bad (r, "section type", "entry %u has type %u; expected 1 to %u",
          i, type, max_type);
    if (r->off[type] != 0)
      return bad (r, section_names[type], "section listed twice");
    if (off < table_end || off % SECTION_ALIGN != 0 || off > r->size
        || bytes > r->size - off)
      return bad (r, section_names[type], "offset %" G_GUINT64_FORMAT
          " size %" G_GUINT64_FORMAT " out of range (file %zu bytes, data "
          "starts at %" G_GUINT64_FORMAT ", 8-byte aligned)", (guint64) off,
          (guint64) bytes, r->size, (guint64) table_end);
    r->off[type] = off;
    r->bytes[type] = bytes;
    r->count[type] = rd32 (e + 4);
  }
  /* every section up to the labels must be there (1.2 lists optional
   * ones besides); offsets are past the table, so 0 means absent */
  for (i = 1; i <= MIN (max_type, N_REQUIRED_SECTIONS); i++)
    if (r->off[i] == 0)
      return bad (r, section_names[i], "section missing");
  for (i = 1; i <= N_SECTIONS; i++)
    for (j = i + 1; j <= N_SECTIONS; j++)
      if (r->off[i] < r->off[j] + r->bytes[j]
          && r->off[j] < r->off[i] + r->bytes[i])
        return bad (r, section_names[i], "overlaps the %s section",
            section_names[j]);
  return 0;
}

static int
check_count (reader * r, int sec, uint64_t record_bytes, uint32_t max)
{
  if (r->count[sec] > max)
    return simnpu__set_error (r->error, SIMNPU_ENOMEM,
        ".axm %s: count %u; expected at most %u", section_names[sec],
        r->count[sec], max);
  if ((uint64_t) r->count[sec] * record_bytes != r->bytes[sec])
    return bad (r, section_names[sec], "%" G_GUINT64_FORMAT " bytes for %u "
        "records; expected %" G_GUINT64_FORMAT, (guint64) r->bytes[sec],
        r->count[sec], (guint64) r->count[sec] * record_bytes);
  return 0;
}

static int
read_blob (reader * r, uint64_t off, uint64_t bytes, const char *field,
    void **out)
{
  uint64_t n = r->bytes[SEC_DATA];

  if (off > n || bytes > n - off)
    return bad (r, field, "data range [%" G_GUINT64_FORMAT ", +%"
        G_GUINT64_FORMAT ") outside the %" G_GUINT64_FORMAT "-byte data "
        "section", (guint64) off, (guint64) bytes, (guint64) n);
  *out = g_memdup2 (r->base + r->off[SEC_DATA] + off, (gsize) bytes);
  return 0;
}

static int
read_tensor (reader * r, simnpu__graph * g, unsigned i)
{
  const guint8 *p = r->base + r->off[SEC_TENSORS] + (size_t) i * TENSOR_BYTES;
  simnpu__tensor *t = &g->tensors[i];
  char field[64];
  uint64_t off, bytes, soff;
  int ret;

  snprintf (field, sizeof (field), "tensors[%u]", i);
  if ((ret = get_str (r, rd32 (p), field, &t->name)) < 0)
    return ret;
  t->dtype = p[4];
  t->io_dtype = p[5];
  t->layout = p[6];
  t->kind = p[7];
  if (t->kind > SIMNPU_TENSOR_CONSTANT)
    return bad (r, field, "kind %u; expected 0 to 3", p[7]);
  if (t->layout > SIMNPU_LAYOUT_NCHW)
    return bad (r, field, "layout %u; expected 0 (NHWC) or 1 (NCHW)", p[6]);
  t->n_dims = rd32 (p + 8);
  if (t->n_dims < 1 || t->n_dims > SIMNPU_MAX_DIMS)
    return bad (r, field, "rank %u; expected 1 to 4", t->n_dims);
  t->n_channel_scales = rd32 (p + 12);
  memcpy (t->dims, p + 16, 32);
  memcpy (&t->scale, p + 48, 4);
  memcpy (&t->zero_point, p + 52, 4);
  off = rd64 (p + 56);
  bytes = rd64 (p + 64);
  soff = rd64 (p + 72);
  if (t->kind != SIMNPU_TENSOR_CONSTANT && (off != NO_DATA
          || (t->n_channel_scales != 0 && (t->kind != SIMNPU_TENSOR_OUTPUT
                  || t->io_dtype != SIMNPU_DTYPE_F32))))
    return bad (r, field, "only constants may carry data, and only they and "
        "f32 outputs per-channel scales");
  if (off != NO_DATA) {
    if ((ret = read_blob (r, off, bytes, field, &t->data)) < 0)
      return ret;
    t->data_bytes = (size_t) bytes;
  }
  if (t->n_channel_scales > 0) {
    if (t->n_channel_scales > (1u << 16) || soff == NO_DATA)
      return bad (r, field, "%u channel scales; expected at most 65536 with "
          "data", t->n_channel_scales);
    if ((ret = read_blob (r, soff, (uint64_t) t->n_channel_scales *
                sizeof (float), field, (void **) &t->channel_scales)) < 0)
      return ret;
  }
  return 0;
}

static int
read_op (reader * r, simnpu__graph * g, unsigned i)
{
  const guint8 *p = r->base + r->off[SEC_OPS] + (size_t) i * OP_BYTES;
  simnpu__op *op = &g->ops[i];
  char field[64];
  uint32_t type;
  int ret;

  snprintf (field, sizeof (field), "ops[%u]", i);
  type = rd32 (p);
  if (type >= SIMNPU_N_OP_TYPES)
    return simnpu__set_error (r->error, SIMNPU_EUNSUPPORTED,
        ".axm %s: unknown op type %u; expected 0 to %d", field, type,
        SIMNPU_N_OP_TYPES - 1);
  op->type = type;
  if ((ret = get_str (r, rd32 (p + 4), field, &op->name)) < 0
      || (ret = get_str (r, rd32 (p + 8), field, &op->location)) < 0)
    return ret;
  op->n_inputs = rd32 (p + 12);
  op->n_outputs = rd32 (p + 16);
  if (op->n_inputs < 1 || op->n_inputs > SIMNPU_MAX_OP_INPUTS
      || op->n_outputs < 1 || op->n_outputs > SIMNPU_MAX_OP_OUTPUTS)
    return bad (r, field, "%u inputs and %u outputs; expected 1 to 8 each",
        op->n_inputs, op->n_outputs);
  memcpy (op->inputs, p + 20, 4 * SIMNPU_MAX_OP_INPUTS);
  memcpy (op->outputs, p + 52, 4 * SIMNPU_MAX_OP_OUTPUTS);
  memcpy (op->attrs, p + 84, 4 * SIMNPU_N_ATTRS);
  return 0;
}

static int
read_schedule (reader * r, const simnpu__graph * g, simnpu__schedule * s)
{
  unsigned i;

  s->n_actions = r->count[SEC_SCHEDULE];
  s->actions = g_new0 (simnpu__action, MAX (s->n_actions, 1));
  for (i = 0; i < s->n_actions; i++) {
    const guint8 *p = r->base + r->off[SEC_SCHEDULE] +
        (size_t) i * ACTION_BYTES;
    simnpu__action *a = &s->actions[i];
    char field[64];
    snprintf (field, sizeof (field), "schedule[%u]", i);
    a->kind = rd32 (p);
    memcpy (&a->resource, p + 4, 4);
    memcpy (&a->op_index, p + 8, 4);
    memcpy (&a->dep, p + 12, 4);
    memcpy (&a->dep2, p + 16, 4);
    a->bytes = rd64 (p + 24);
    a->cycles = rd64 (p + 32);
    a->device_ns = rd64 (p + 40);
    if (a->kind > SIMNPU_ACTION_CSS)
      return bad (r, field, "kind %u; expected 0 to 4", a->kind);
    if (a->resource < SIMNPU__RES_CORE || a->resource >= SIMNPU_MAX_RESOURCES)
      return bad (r, field, "resource %d; expected -1 (the job's core) or "
          "0 to %d", a->resource, SIMNPU_MAX_RESOURCES - 1);
    if (a->op_index < -1 || a->op_index >= (int32_t) g->n_ops)
      return bad (r, field, "op index %d; expected -1 to %u", a->op_index,
          g->n_ops - 1);
    if (a->dep < SIMNPU__NO_DEP || a->dep >= (int32_t) i
        || a->dep2 < SIMNPU__NO_DEP || a->dep2 >= (int32_t) i)
      return bad (r, field, "dependencies must name earlier actions");
    if (a->device_ns > MAX_ACTION_NS)
      return bad (r, field, "duration %" G_GUINT64_FORMAT " ns; expected at "
          "most 10 s", (guint64) a->device_ns);
  }
  return 0;
}

/* Absent in 1.0 files: no labels. */
static int
read_labels (reader * r, simnpu__graph * g)
{
  const guint8 *p = r->base + r->off[SEC_LABELS];
  unsigned i;
  int ret;

  g->n_labels = r->count[SEC_LABELS];
  g->labels = g_new0 (char *, g->n_labels + 1);
  for (i = 0; i < g->n_labels; i++) {
    char field[64];
    const char *problem;
    snprintf (field, sizeof (field), "labels[%u]", i);
    if ((ret = get_str (r, rd32 (p + 4 * i), field, &g->labels[i])) < 0)
      return ret;
    if ((problem = simnpu__label_problem (g->labels[i])) != NULL)
      return bad (r, field, "label %s; expected a non-empty name under "
          "256 bytes without control characters", problem);
  }
  return 0;
}

/* A host section (absent: NULL): the IR's own reader validates it field
 * by field; its shapes are then inferred, which the binding check and the
 * executor need. */
static int
read_host_section (reader * r, int sec, simnpu__ir_graph ** out)
{
  simnpu_error sub = { 0 };
  int ret;

  *out = NULL;
  if (r->off[sec] == 0)
    return 0;
  if (r->count[sec] != r->bytes[sec])
    return bad (r, section_names[sec], "count %u; expected the section's "
        "size, %" G_GUINT64_FORMAT " bytes", r->count[sec],
        (guint64) r->bytes[sec]);
  ret = simnpu__ir_deserialize (r->base + r->off[sec],
      (size_t) r->bytes[sec], out, &sub);
  if (ret == 0)
    ret = simnpu__ir_infer_shapes (*out, &sub);
  if (ret < 0) {
    simnpu__ir_graph_free (*out);
    *out = NULL;
    return simnpu__set_error (r->error, ret, ".axm %s: %s",
        section_names[sec], sub.message);
  }
  return 0;
}

static int
check_finite (reader * r, const char *field, float v, bool nonzero)
{
  if (!isfinite (v) || (nonzero && v == 0.0f))
    return bad (r, "preprocess", "%s is %g; expected a finite%s number",
        field, v, nonzero ? ", non-zero" : "");
  return 0;
}

static int
read_preprocess (reader * r, simnpu__graph * g)
{
  const guint8 *p = r->base + r->off[SEC_PREPROCESS];
  simnpu__preprocess *pp = &g->preprocess;
  uint32_t color, resize, fill, layout;
  char field[16];
  unsigned c;
  int ret;

  if (r->off[SEC_PREPROCESS] == 0)
    return 0;
  if (r->count[SEC_PREPROCESS] != 1 || r->bytes[SEC_PREPROCESS] !=
      PREPROCESS_BYTES)
    return bad (r, "preprocess", "%u records in %" G_GUINT64_FORMAT " bytes; "
        "expected one of %d bytes", r->count[SEC_PREPROCESS],
        (guint64) r->bytes[SEC_PREPROCESS], PREPROCESS_BYTES);
  color = rd32 (p);
  resize = rd32 (p + 4);
  fill = rd32 (p + 8);
  if (color > SIMNPU_COLOR_GRAY)
    return bad (r, "preprocess", "color order %u; expected 0 (RGB), 1 (BGR) "
        "or 2 (gray)", color);
  if (resize > SIMNPU_RESIZE_STRETCH)
    return bad (r, "preprocess", "resize kind %u; expected 0 (letterbox) or "
        "1 (stretch)", resize);
  if (fill > G_MAXUINT8)
    return bad (r, "preprocess", "fill %u; expected 0 to 255", fill);
  layout = rd32 (p + 40);
  if (layout > SIMNPU_LAYOUT_NCHW)
    return bad (r, "preprocess", "layout %u; expected 0 (NHWC) or 1 (NCHW)",
        layout);
  pp->layout = layout;
  pp->color = color;
  pp->resize = resize;
  pp->fill = (uint8_t) fill;
  memcpy (&pp->scale, p + 12, 4);
  memcpy (pp->mean, p + 16, sizeof (pp->mean));
  memcpy (pp->std, p + 28, sizeof (pp->std));
  if ((ret = check_finite (r, "scale", pp->scale, true)) < 0)
    return ret;
  for (c = 0; c < G_N_ELEMENTS (pp->mean); c++) {
    snprintf (field, sizeof (field), "mean[%u]", c);
    if ((ret = check_finite (r, field, pp->mean[c], false)) < 0)
      return ret;
    snprintf (field, sizeof (field), "std[%u]", c);
    if ((ret = check_finite (r, field, pp->std[c], true)) < 0)
      return ret;
  }
  g->has_preprocess = true;
  return 0;
}

/* One record per postamble output: f32 (scale 1, zero point 0), or u8 /
 * i8 with a finite positive scale and a zero point in the dtype's range. */
static int
read_postamble_quant (reader * r, simnpu__graph * g)
{
  const guint8 *p = r->base + r->off[SEC_POSTAMBLE_QUANT];
  unsigned n, j;

  if (r->off[SEC_POSTAMBLE_QUANT] == 0)
    return 0;
  if (g->postamble == NULL)
    return bad (r, "postamble-quant", "present without a postamble");
  n = g->postamble->n_outputs;
  if (r->count[SEC_POSTAMBLE_QUANT] != n || n > SIMNPU_MAX_IO
      || r->bytes[SEC_POSTAMBLE_QUANT] != (uint64_t) n * POSTAMBLE_QUANT_BYTES)
    return bad (r, "postamble-quant", "%u records in %" G_GUINT64_FORMAT
        " bytes; expected one of %d bytes per postamble output (%u)",
        r->count[SEC_POSTAMBLE_QUANT], (guint64) r->bytes[SEC_POSTAMBLE_QUANT],
        POSTAMBLE_QUANT_BYTES, n);
  for (j = 0; j < n; j++) {
    const guint8 *e = p + (size_t) j * POSTAMBLE_QUANT_BYTES;
    uint32_t dtype = rd32 (e);
    float scale;
    int32_t zp, lo, hi;
    memcpy (&scale, e + 4, 4);
    memcpy (&zp, e + 8, 4);
    if (dtype != SIMNPU_DTYPE_U8 && dtype != SIMNPU_DTYPE_I8
        && dtype != SIMNPU_DTYPE_F32)
      return bad (r, "postamble-quant", "output %u: dtype %u; expected 0 "
          "(u8), 1 (i8) or 2 (f32)", j, dtype);
    if (dtype == SIMNPU_DTYPE_F32 && (scale != 1.0f || zp != 0))
      return bad (r, "postamble-quant", "output %u: f32 with scale %g and "
          "zero point %d; expected 1 and 0", j, scale, zp);
    lo = dtype == SIMNPU_DTYPE_U8 ? 0 : G_MININT8;
    hi = dtype == SIMNPU_DTYPE_U8 ? G_MAXUINT8 : G_MAXINT8;
    if (dtype != SIMNPU_DTYPE_F32 && (!isfinite (scale) || !(scale > 0.0f)
            || zp < lo || zp > hi))
      return bad (r, "postamble-quant", "output %u: scale %g, zero point "
          "%d; expected a finite positive scale and a zero point in %d to "
          "%d", j, scale, zp, lo, hi);
    g->postamble_quant[j].dtype = dtype;
    g->postamble_quant[j].scale = scale;
    g->postamble_quant[j].zero_point = zp;
  }
  g->has_postamble_quant = true;
  return 0;
}

/* UTF-8 text of one JSON object, no NUL, bounded in size and depth. */
static int
read_decoder (reader * r, simnpu__graph * g)
{
  const char *text = (const char *) r->base + r->off[SEC_DECODER];
  size_t n = (size_t) r->bytes[SEC_DECODER];
  JsonParser *parser;
  JsonNode *root;
  GError *err = NULL;
  int ret = 0;

  if (r->off[SEC_DECODER] == 0)
    return 0;
  if (r->count[SEC_DECODER] != r->bytes[SEC_DECODER])
    return bad (r, "decoder", "count %u; expected the section's size, %zu "
        "bytes", r->count[SEC_DECODER], n);
  if (n == 0 || n > SIMNPU_MAX_DECODER_BYTES)
    return bad (r, "decoder", "%zu bytes; expected a JSON object of 1 to %d "
        "bytes", n, SIMNPU_MAX_DECODER_BYTES);
  if (memchr (text, '\0', n) != NULL || !g_utf8_validate (text, (gssize) n,
          NULL))
    return bad (r, "decoder", "not UTF-8 text (or contains a NUL); expected "
        "a JSON object");
  if (simnpu__json_depth (text, n) > SIMNPU_MAX_DECODER_DEPTH)
    return bad (r, "decoder", "nested deeper than %d levels",
        SIMNPU_MAX_DECODER_DEPTH);
  {
    char msg[SIMNPU_ERROR_MESSAGE_SIZE];
    if (simnpu__json_find_bad_int (text, n, msg, sizeof (msg)))
      return bad (r, "decoder", "%s", msg);
  }
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, text, (gssize) n, &err)) {
    ret = bad (r, "decoder", "invalid JSON: %s", err->message);
    g_error_free (err);
  } else if ((root = json_parser_get_root (parser)) == NULL
      || !JSON_NODE_HOLDS_OBJECT (root)) {
    ret = bad (r, "decoder", "expected a JSON object ({\"type\": ...})");
  } else {
    g->decoder = g_strndup (text, n);
  }
  g_object_unref (parser);
  return ret;
}

int
simnpu__axm_read (const void *data, size_t size, simnpu__graph ** out_graph,
    simnpu__schedule * s, simnpu_error * error)
{
  reader r = {.base = data,.size = size,.error = error };
  simnpu__graph *g = NULL;
  uint32_t flags, n_in, n_out;
  const guint8 *io;
  unsigned i;
  int ret;

  *out_graph = NULL;
  memset (s, 0, sizeof (*s));
  if (data == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL, ".axm: no data");
  if ((ret = read_sections (&r)) < 0)
    return ret;
  if ((ret = check_count (&r, SEC_TENSORS, TENSOR_BYTES,
              SIMNPU_MAX_TENSORS)) < 0
      || (ret = check_count (&r, SEC_OPS, OP_BYTES, SIMNPU_MAX_OPS)) < 0
      || (ret = check_count (&r, SEC_IO, 4, 2 * SIMNPU_MAX_IO)) < 0
      || (ret = check_count (&r, SEC_SCHEDULE, ACTION_BYTES, MAX_ACTIONS)) < 0
      || (ret = check_count (&r, SEC_LABELS, 4, SIMNPU_MAX_LABELS)) < 0)
    return ret;

  flags = rd32 (r.base + 28);
  n_in = rd32 (r.base + 40);
  n_out = rd32 (r.base + 44);
  if (flags & ~FLAG_ESTIMATE_ONLY)
    return bad (&r, "flags", "unknown flags 0x%x", flags);
  if (n_in < 1 || n_out < 1 || n_in > SIMNPU_MAX_IO || n_out > SIMNPU_MAX_IO
      || n_in + n_out != r.count[SEC_IO])
    return bad (&r, "n_inputs/n_outputs", "%u and %u with %u io entries; "
        "expected 1 to 16 each, adding up", n_in, n_out, r.count[SEC_IO]);

  g = simnpu__graph_new ();
  g->estimate_only = (flags & FLAG_ESTIMATE_ONLY) != 0;
  if ((ret = get_str (&r, rd32 (r.base + 32), "name", &g->name)) < 0)
    goto fail;
  {
    char *spec = NULL;
    if ((ret = get_str (&r, rd32 (r.base + 36), "spec", &spec)) < 0)
      goto fail;
    g_strlcpy (s->spec, spec, sizeof (s->spec));
    g_free (spec);
  }
  g->n_tensors = r.count[SEC_TENSORS];
  g->tensors = g_new0 (simnpu__tensor, MAX (g->n_tensors, 1));
  for (i = 0; i < g->n_tensors; i++)
    if ((ret = read_tensor (&r, g, i)) < 0)
      goto fail;
  g->n_ops = r.count[SEC_OPS];
  g->ops = g_new0 (simnpu__op, MAX (g->n_ops, 1));
  for (i = 0; i < g->n_ops; i++)
    if ((ret = read_op (&r, g, i)) < 0)
      goto fail;
  io = r.base + r.off[SEC_IO];
  g->n_inputs = n_in;
  g->n_outputs = n_out;
  for (i = 0; i < n_in; i++)
    g->inputs[i] = rd32 (io + 4 * i);
  for (i = 0; i < n_out; i++)
    g->outputs[i] = rd32 (io + 4 * (n_in + i));
  if ((ret = read_schedule (&r, g, s)) < 0)
    goto fail;
  if ((ret = read_labels (&r, g)) < 0)
    goto fail;
  if ((ret = read_host_section (&r, SEC_PREAMBLE, &g->preamble)) < 0
      || (ret = read_host_section (&r, SEC_POSTAMBLE, &g->postamble)) < 0
      || (ret = read_preprocess (&r, g)) < 0
      || (ret = read_decoder (&r, g)) < 0
      || (ret = read_postamble_quant (&r, g)) < 0)
    goto fail;
  if ((ret = simnpu__graph_validate (g, error)) < 0
      || (ret = simnpu__host_check (g, error)) < 0)
    goto fail;
  *out_graph = g;
  return 0;

fail:
  simnpu__graph_free (g);
  simnpu__schedule_clear (s);
  return ret;
}
