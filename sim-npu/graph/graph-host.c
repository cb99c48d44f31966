/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The binding rule of a compiled model's host sections (the float
 * preamble and postamble, see runtime/host.c) to its device graph,
 * checked when the model is read. */

#include "graph/graph.h"
#include "ir/ir.h"

#include <string.h>

static const char *
section_name (simnpu_section_kind kind)
{
  return kind == SIMNPU_SECTION_PREAMBLE ? "preamble" : "postamble";
}

int
simnpu__graph_find_io (const simnpu__graph * g, bool inputs, const char *name)
{
  unsigned n = inputs ? g->n_inputs : g->n_outputs, i;
  const unsigned *idx = inputs ? g->inputs : g->outputs;

  for (i = 0; i < n; i++)
    if (strcmp (g->tensors[idx[i]].name, name) == 0)
      return (int) i;
  return -1;
}

/* A tensor of a section's input or output list: in range, f32, not a
 * constant, with a known shape; public ones also of rank 1 to 4. */
static int
check_io_tensor (const simnpu__ir_graph * s, const char *sec, const char *io,
    unsigned j, int t, bool public_side, simnpu_error * error)
{
  const simnpu__ir_tensor *x;
  const char *problem;
  int64_t n;

  if (t < 0 || (unsigned) t >= s->n_tensors)
    return simnpu__set_error (error, SIMNPU_EFORMAT, ".axm %s: %s %u is "
        "tensor %d; expected 0 to %u", sec, io, j, t, s->n_tensors - 1);
  x = &s->tensors[t];
  /* public names reach the caller (tensor metas, messages) */
  if (public_side && (problem = simnpu__label_problem (x->name)) != NULL)
    return simnpu__set_error (error, SIMNPU_EFORMAT, ".axm %s: %s %u: name "
        "%s; expected a non-empty UTF-8 name under %d bytes without control "
        "characters", sec, io, j, problem, SIMNPU_MAX_NAME_BYTES);
  if (x->dtype != SIMNPU_IR_F32)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED, ".axm %s: %s '%s' "
        "is %s; expected f32", sec, io, x->name,
        simnpu__ir_dtype_name (x->dtype));
  if (x->is_const && strcmp (io, "input") == 0)
    return simnpu__set_error (error, SIMNPU_EFORMAT, ".axm %s: input '%s' "
        "is a constant; expected a tensor the caller fills", sec, x->name);
  n = simnpu__ir_tensor_elements (x);
  if (n < 1 || n > SIMNPU_MAX_TENSOR_ELEMENTS)
    return simnpu__set_error (error, SIMNPU_ESHAPE, ".axm %s: %s '%s' has "
        "%" G_GINT64_FORMAT " elements; expected 1 to 2^26", sec, io,
        x->name, (gint64) n);
  if (public_side && (x->rank < 1 || x->rank > SIMNPU_MAX_DIMS))
    return simnpu__set_error (error, SIMNPU_ESHAPE, ".axm %s: %s '%s' is "
        "the model's; rank %u, expected 1 to %d", sec, io, x->name, x->rank,
        SIMNPU_MAX_DIMS);
  return 0;
}

/* One section: its public side checked, its device side bound by name to
 * distinct device tensors (marked in @bound) of equal element counts. */
static int
check_section (const simnpu__graph * g, const simnpu__ir_graph * s,
    simnpu_section_kind kind, bool *bound, simnpu_error * error)
{
  const char *sec = section_name (kind);
  bool pre = kind == SIMNPU_SECTION_PREAMBLE;
  unsigned n_pub = pre ? s->n_inputs : s->n_outputs;
  unsigned n_dev = pre ? s->n_outputs : s->n_inputs;
  const int *pub = pre ? s->inputs : s->outputs;
  const int *dev = pre ? s->outputs : s->inputs;
  const char *pub_io = pre ? "input" : "output";
  const char *dev_io = pre ? "output" : "input";
  size_t planned = 0, flat = 0;
  simnpu_error sub = { 0 };
  unsigned j, k;
  int ret;

  if (n_pub < 1 || n_pub > SIMNPU_MAX_IO || n_dev < 1 || n_dev > SIMNPU_MAX_IO)
    return simnpu__set_error (error, SIMNPU_EFORMAT, ".axm %s: %u inputs "
        "and %u outputs; expected 1 to %d each", sec, s->n_inputs,
        s->n_outputs, SIMNPU_MAX_IO);
  for (j = 0; j < s->n_tensors; j++) {
    int64_t n = simnpu__ir_tensor_elements (&s->tensors[j]);
    if (s->tensors[j].is_const)
      continue;
    if (n < 0 || n > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__set_error (error, SIMNPU_ENOMEM, ".axm %s: tensor '%s' "
          "has %" G_GINT64_FORMAT " elements; expected at most 2^28", sec,
          s->tensors[j].name, (gint64) n);
  }
  /* the executor's arena at load, planned by the tensors' live ranges */
  if ((ret = simnpu__ir_plan_memory (s, &planned, &flat, &sub)) < 0)
    return simnpu__set_error (error, ret, ".axm %s: %s", sec, sub.message);
  if (planned > SIMNPU_MAX_ARENA_BYTES)
    return simnpu__set_error (error, SIMNPU_ENOMEM, ".axm %s: the host "
        "section needs %.1f MB of memory for its tensors (%.1f MB without "
        "the memory plan); the runtime loads at most %" G_GUINT64_FORMAT
        " MiB per host section", sec, planned / 1e6, flat / 1e6,
        (guint64) (SIMNPU_MAX_ARENA_BYTES >> 20));
  for (j = 0; j < n_pub; j++) {
    if ((ret = check_io_tensor (s, sec, pub_io, j, pub[j], true, error)) < 0)
      return ret;
    for (k = 0; k < j; k++)
      if (strcmp (s->tensors[pub[k]].name, s->tensors[pub[j]].name) == 0)
        return simnpu__set_error (error, SIMNPU_EFORMAT, ".axm %s: %s '%s' "
            "listed twice", sec, pub_io, s->tensors[pub[j]].name);
  }
  for (j = 0; j < n_dev; j++) {
    const simnpu__ir_tensor *x;
    const simnpu__tensor *d;
    int at;

    if ((ret = check_io_tensor (s, sec, dev_io, j, dev[j], false, error)) < 0)
      return ret;
    x = &s->tensors[dev[j]];
    at = simnpu__graph_find_io (g, pre, x->name);
    if (at < 0)
      return simnpu__set_error (error, SIMNPU_EFORMAT, ".axm %s: %s '%s' is "
          "not a device %s; expected the name of one of the device graph's "
          "%u %ss", sec, dev_io, x->name, pre ? "input" : "output",
          pre ? g->n_inputs : g->n_outputs, pre ? "input" : "output");
    if (bound[at])
      return simnpu__set_error (error, SIMNPU_EFORMAT, ".axm %s: device %s "
          "'%s' is bound twice", sec, pre ? "input" : "output", x->name);
    bound[at] = true;
    d = &g->tensors[pre ? g->inputs[at] : g->outputs[at]];
    if (simnpu__ir_tensor_elements (x) != simnpu__tensor_elements (d))
      return simnpu__set_error (error, SIMNPU_ESHAPE, ".axm %s: %s '%s' has "
          "%" G_GINT64_FORMAT " elements; the device %s has %"
          G_GINT64_FORMAT, sec, dev_io, x->name,
          (gint64) simnpu__ir_tensor_elements (x), pre ? "input" : "output",
          (gint64) simnpu__tensor_elements (d));
  }
  /* the public tensors: the section's, then the unbound device ones */
  for (k = 0; k < (pre ? g->n_inputs : g->n_outputs); k++) {
    const simnpu__tensor *d;

    if (bound[k])
      continue;
    if (++n_pub > SIMNPU_MAX_IO)
      return simnpu__set_error (error, SIMNPU_EFORMAT, ".axm %s: the model "
          "would have more than %d public %ss", sec, SIMNPU_MAX_IO, pub_io);
    d = &g->tensors[pre ? g->inputs[k] : g->outputs[k]];
    for (j = 0; j < (pre ? s->n_inputs : s->n_outputs); j++)
      if (strcmp (s->tensors[pub[j]].name, d->name) == 0)
        return simnpu__set_error (error, SIMNPU_EFORMAT, ".axm %s: %s '%s' "
            "has the name of a device %s the model also exposes", sec,
            pub_io, d->name, pub_io);
  }
  return 0;
}

int
simnpu__host_check (const simnpu__graph * g, simnpu_error * error)
{
  bool bound_in[SIMNPU_MAX_IO] = { false };
  bool bound_out[SIMNPU_MAX_IO] = { false };
  int ret;

  if (g->preamble != NULL && (ret = check_section (g, g->preamble,
              SIMNPU_SECTION_PREAMBLE, bound_in, error)) < 0)
    return ret;
  if (g->postamble != NULL && (ret = check_section (g, g->postamble,
              SIMNPU_SECTION_POSTAMBLE, bound_out, error)) < 0)
    return ret;
  return 0;
}
