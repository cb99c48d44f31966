/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* From a float IR graph to a compiled model: placement of every node on
 * the device or the host (preamble / postamble), calibration with the
 * float executor, int8 quantisation (per-channel symmetric weights,
 * per-tensor asymmetric activations, int32 bias at in_scale * w_scale, as
 * TFLite's int8 spec), lowering to the device graph, and the accuracy
 * report (SQNR of int8 against float).
 *
 * This file holds the options and simnpu__compile(), which runs those
 * steps in turn; the steps' files are listed in quantize-private.h. */

#include "quantize-private.h"

#include <string.h>

/* random calibration when the user gives no images */
#define N_RANDOM_INPUTS 8
#define RANDOM_SEED 0x5eed
#define DEFAULT_LOGIT_FLOOR (-12.0f)
#define DEFAULT_FALLBACK_DB 20.0
/* the share of the model's MACs host fallback may move off the device */
#define DEFAULT_FALLBACK_MAC_SHARE 0.10
/* host fallback is kept only if the outputs gain this much in sum (a
 * sixth of a bit: less does not pay for the host's float MACs) and none
 * loses more than the slack */
#define FALLBACK_MIN_GAIN_DB 1.0
#define FALLBACK_WORST_SLACK_DB 0.1
/* candidates whose worst outputs are this close are told apart by the
 * sum */
#define FALLBACK_TIE_DB 0.05
/* the ways of moving layers to the host that fallback measures: the
 * tail, the shortest and the longest head, both ends */
#define FALLBACK_MAX_TRIES 4

void
simnpu__compile_options_init (simnpu__compile_options * o)
{
  memset (o, 0, sizeof (*o));
  o->logit_floor = DEFAULT_LOGIT_FLOOR;
  o->output_dtype = SIMNPU_DTYPE_F32;
  o->fg_threshold = 0.5f;
  o->fallback_db = DEFAULT_FALLBACK_DB;
  o->fallback_mac_share = DEFAULT_FALLBACK_MAC_SHARE;
}

void
simnpu__compile_result_clear (simnpu__compile_result * r)
{
  unsigned i;

  g_free (r->placement);
  for (i = 0; i < r->n_outputs; i++)
    g_free (r->outputs[i].name);
  g_free (r->outputs);
  if (r->text)
    g_string_free (r->text, TRUE);
  memset (r, 0, sizeof (*r));
}

/* ------------------------------------------------------------------ */

static double
acc_db (const sqnr_acc * a)
{
  return a->fg_n ? simnpu__quantize_sqnr_db (a->fg_sig, a->fg_noise) :
      simnpu__quantize_sqnr_db (a->sig, a->noise);
}

/* The SQNR (over the foreground when there is one) of each model output
 * as the current placement computes it on INPUTS: the device's int8
 * results, through the postamble in float where there is one. E holds
 * the device's figures on INPUTS. */
static int
measure_outputs (compile_ctx * c, simnpu__graph * dg, const evaluator * e,
    GPtrArray * inputs, double *db, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  unsigned i, j;
  int ret;

  for (i = 0; i < g->n_outputs; i++)
    db[i] = NAN;
  for (i = 0; i < dg->n_tensors; i++)
    for (j = 0; j < g->n_outputs; j++)
      if (e->ir_of_dev[i] == g->outputs[j])
        db[j] = acc_db (&e->acc[i]);
  if ((ret = simnpu__quantize_extract_section (c, SIMNPU_SECTION_POSTAMBLE,
              &dg->postamble, error)) < 0 || dg->postamble == NULL)
    return ret;
  {
    const simnpu__ir_graph *post = dg->postamble;
    sqnr_acc *pa = g_new0 (sqnr_acc, post->n_outputs);
    ret = simnpu__quantize_evaluate_public (c, dg, inputs, pa, error);
    for (i = 0; ret == 0 && i < post->n_outputs; i++)
      for (j = 0; j < g->n_outputs; j++)
        if (strcmp (post->tensors[post->outputs[i]].name,
                g->tensors[g->outputs[j]].name) == 0)
          db[j] = acc_db (&pa[i]);
    g_free (pa);
  }
  simnpu__ir_graph_free (dg->postamble);
  dg->postamble = NULL;
  return ret;
}

/* Placement, quantisation, lowering and the accuracy run on the
 * calibration set again, after host fallback moved layers or was
 * undone. */
static int
requantize (compile_ctx * c, const chan_stats * fix, GPtrArray * calib,
    simnpu__graph ** dg, evaluator * ecal, simnpu__compile_result * r,
    simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  int ret;

  simnpu__quantize_evaluator_clear (ecal);
  /* cleared for good: an error below leaves nothing to free twice */
  memset (ecal, 0, sizeof *ecal);
  simnpu__graph_free (*dg);
  *dg = NULL;
  memset (c->has_q, 0, g->n_tensors * sizeof (bool));
  memset (c->is_logit, 0, g->n_tensors * sizeof (bool));
  c->pixel_input = false;
  if ((ret = simnpu__quantize_place_nodes (c, error)) < 0
      || (ret = simnpu__quantize_assign_quant (c, error)) < 0
      || (ret = simnpu__quantize_lower (c, fix, dg, error)) < 0)
    return ret;
  g_string_truncate (r->text, 0);
  r->device_macs = r->host_macs = 0;
  simnpu__quantize_report_placement (c, r);
  simnpu__quantize_evaluator_init (ecal, *dg, g);
  return simnpu__quantize_evaluate (c, *dg, calib, ecal, error);
}

/* The worst (lowest) and the sum of the finite figures of DB. A lossless
 * output (inf) counts as no change; NaN (not measured) is skipped. */
static void
db_summary (const simnpu__ir_graph * g, const double *db, double *worst,
    double *sum)
{
  unsigned i;

  *worst = INFINITY;
  *sum = 0.0;
  for (i = 0; i < g->n_outputs; i++) {
    if (isnan (db[i]))
      continue;
    *worst = MIN (*worst, db[i]);
    if (isfinite (db[i]))
      *sum += db[i];
  }
}

/* Whether a host fallback paid: the model outputs' SQNR on the
 * calibration set with it (AFTER) against without (BEFORE). It pays when
 * the outputs gained enough in sum and the worst did not lose. */
static bool
fallback_gained (const simnpu__ir_graph * g, const double *before,
    const double *after)
{
  double worst_b, worst_a, sum_b, sum_a;
  unsigned i;

  for (i = 0; i < g->n_outputs; i++)
    if (isnan (before[i]) != isnan (after[i])
        || isfinite (before[i]) != isfinite (after[i]))
      return false;
  db_summary (g, before, &worst_b, &sum_b);
  db_summary (g, after, &worst_a, &sum_a);
  return sum_a - sum_b >= FALLBACK_MIN_GAIN_DB
      && worst_a >= worst_b - FALLBACK_WORST_SLACK_DB;
}

/* Whether candidate AFTER beats BEST: the worst output first (what a user
 * of the model sees fail), then the sum. */
static bool
fallback_better (const simnpu__ir_graph * g, const double *after,
    const double *best)
{
  double worst_a, sum_a, worst_b, sum_b;

  db_summary (g, after, &worst_a, &sum_a);
  db_summary (g, best, &worst_b, &sum_b);
  if (fabs (worst_a - worst_b) > FALLBACK_TIE_DB)
    return worst_a > worst_b;
  return sum_a > sum_b;
}

/* One way of running layers on the host in float, which host fallback
 * measures: the nodes forced to the host (the rest follows from the
 * placement rules), and what the outputs measured with it. */
typedef struct
{
  const char *what;
  bool *host;                   /* per node */
  double *db;                   /* per model output */
  double moved_macs;
  /* the MACs it may move: the share, or for the tail, at least the low
   * outputs' own layers */
  double max_macs;
  bool gained;
} fallback_try;

/* Places, quantises and measures candidate T; the device graph, the
 * evaluator and the report then are T's. */
static int
try_fallback (compile_ctx * c, const chan_stats * fix, GPtrArray * calib,
    simnpu__graph ** dg, evaluator * ecal, simnpu__compile_result * r,
    uint64_t base_host_macs, const double *before, fallback_try * t,
    GString * text, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  double worst_b, sum_b, worst_a, sum_a;
  int ret;

  memcpy (c->force_host, t->host, g->n_nodes * sizeof (bool));
  ret = requantize (c, fix, calib, dg, ecal, r, error);
  if (ret == SIMNPU_EUNSUPPORTED) {
    /* a placement the sections cannot hold (a host node after the device
     * reading what only the preamble makes): not a candidate; the caller
     * requantizes the one it keeps */
    g_string_append_printf (text, "  host fallback tried: %s: not "
        "possible (%s)\n", t->what, error->message);
    memset (error, 0, sizeof *error);
    t->gained = false;
    return 0;
  }
  if (ret < 0
      || (ret = measure_outputs (c, *dg, ecal, calib, t->db, error)) < 0)
    return ret;
  t->moved_macs = (double) r->host_macs - (double) base_host_macs;
  t->gained = fallback_gained (g, before, t->db)
      && t->moved_macs <= t->max_macs;
  db_summary (g, before, &worst_b, &sum_b);
  db_summary (g, t->db, &worst_a, &sum_a);
  g_string_append_printf (text, "  host fallback tried: %s (%.3f M MACs "
      "moved): worst output %.1f -> %.1f dB, sum %+.1f dB%s\n", t->what,
      t->moved_macs / 1e6, worst_b, worst_a, sum_a - sum_b,
      t->gained ? "" : ", not enough");
  return 0;
}

/* The model outputs' figures on HELD when every range comes from the
 * calibration on the other images: min/max (SEARCHED false) or searched
 * from the histograms. */
static int
measure_ranges (compile_ctx * c, const chan_stats * fix, GPtrArray * held,
    bool searched, double *db, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  range_hist *hist = c->hist;
  simnpu__graph *dg = NULL;
  evaluator e = { 0 };
  int ret;

  if (!searched)
    c->hist = NULL;
  memset (c->has_q, 0, g->n_tensors * sizeof (bool));
  memset (c->is_logit, 0, g->n_tensors * sizeof (bool));
  c->pixel_input = false;
  if ((ret = simnpu__quantize_assign_quant (c, error)) == 0
      && (ret = simnpu__quantize_lower (c, fix, &dg, error)) == 0) {
    simnpu__quantize_evaluator_init (&e, dg, g);
    if ((ret = simnpu__quantize_evaluate (c, dg, held, &e, error)) == 0)
      ret = measure_outputs (c, dg, &e, held, db, error);
    simnpu__quantize_evaluator_clear (&e);
  }
  simnpu__graph_free (dg);
  c->hist = hist;
  return ret;
}

/* Whether activation ranges searched for the least int8 error (clipping
 * rare outliers) serve the model better than min/max, measured rather
 * than assumed: a range fitted to a few images can clip what the next
 * image needs, so both are fitted on every other calibration image and
 * judged on the model's outputs on the rest, by the rule host fallback
 * uses. Leaves the ranges (and the histograms, when searched ranges won)
 * those of the whole calibration set. */
static int
choose_ranges (compile_ctx * c, const chan_stats * fix, GPtrArray * calib,
    GString * text, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  GPtrArray *fit = g_ptr_array_new (), *held = g_ptr_array_new ();
  double *mm = g_new (double, g->n_outputs);
  double *se = g_new (double, g->n_outputs);
  double worst_mm, sum_mm, worst_se, sum_se;
  bool better = false;
  unsigned i;
  int ret;

  for (i = 0; i < calib->len; i++)
    g_ptr_array_add (i % 2 ? held : fit, calib->pdata[i]);
  c->search_ranges = true;
  if ((ret = simnpu__quantize_calibrate (c, fit, NULL, error)) < 0
      || (ret = measure_ranges (c, fix, held, false, mm, error)) < 0
      || (ret = measure_ranges (c, fix, held, true, se, error)) < 0)
    goto out;
  better = fallback_gained (g, mm, se);
  db_summary (g, mm, &worst_mm, &sum_mm);
  db_summary (g, se, &worst_se, &sum_se);
  g_string_append_printf (text, "  activation ranges: fitted on %u "
      "calibration images, measured on the other %u: searched ranges "
      "against min/max, worst output %.1f -> %.1f dB, sum %+.1f dB: %s\n",
      fit->len, held->len, worst_mm, worst_se, sum_se - sum_mm, better ?
      "searched ranges kept" : "min/max kept");
  c->search_ranges = better;
  ret = simnpu__quantize_calibrate (c, calib, NULL, error);

out:
  g_ptr_array_free (fit, TRUE);
  g_ptr_array_free (held, TRUE);
  g_free (mm);
  g_free (se);
  return ret;
}

static void
add_try (fallback_try * tries, unsigned *n, const simnpu__ir_graph * g,
    const char *what, const bool *host, double max_macs)
{
  fallback_try *t = &tries[(*n)++];

  t->what = what;
  t->max_macs = max_macs;
  t->host = g_memdup2 (host, g->n_nodes * sizeof (bool));
  t->db = g_new (double, g->n_outputs);
}

/* Host fallback: when an output of the model measures below the bar, the
 * ways of running layers on the host in float within the MAC share
 * (the layers that make the low outputs, the model's first layers, both)
 * are each placed, quantised and measured on the model's outputs, and
 * the one whose worst output gains most is kept, if any pays (see
 * fallback_gained()). Leaves the placement, the device graph and the
 * calibration figures those of the choice. */
static int
host_fallback (compile_ctx * c, const chan_stats * fix, GPtrArray * calib,
    simnpu__graph ** dg, evaluator * ecal, simnpu__compile_result * r,
    GString * fb, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  fallback_try tries[FALLBACK_MAX_TRIES];
  double *before = g_new (double, g->n_outputs);
  simnpu__section *base_place =
      g_memdup2 (c->place, g->n_nodes * sizeof (simnpu__section));
  uint64_t base_host = r->host_macs, pmacs;
  uint64_t budget = (uint64_t) (c->opts->fallback_mac_share *
      (double) simnpu__quantize_total_macs (c));
  bool *host = g_new0 (bool, g->n_nodes);
  bool low = false, have_tail = false;
  unsigned n_tries = 0, i, k, first_k, last_k;
  int best = -1, last = -1, ret = 0;

  memset (tries, 0, sizeof (tries));
  for (i = 0; i < (*dg)->n_outputs; i++)
    low |= acc_db (&ecal->acc[(*dg)->outputs[i]]) < c->opts->fallback_db;
  if (!low)
    goto out;
  if ((ret = measure_outputs (c, *dg, ecal, calib, before, error)) < 0)
    goto out;
  if (simnpu__quantize_mark_fallback (c, *dg, ecal, fb) > 0) {
    add_try (tries, &n_tries, g, "the layers that make the low outputs",
        c->force_host, INFINITY);
    have_tail = true;
  }
  memset (c->force_host, 0, g->n_nodes * sizeof (bool));
  first_k = simnpu__quantize_prefix_cut (c, budget, true, &pmacs);
  last_k = simnpu__quantize_prefix_cut (c, budget, false, &pmacs);
  if (first_k > 0) {
    for (k = 0; k < first_k; k++)
      host[k] = true;
    add_try (tries, &n_tries, g, "the model's first layers, to the first "
        "cut after a convolution", host, (double) budget);
  }
  if (last_k > first_k) {
    for (k = 0; k < last_k; k++)
      host[k] = true;
    add_try (tries, &n_tries, g, "the model's first layers, as many as the "
        "share allows to the smallest tensor crossing to the device", host,
        (double) budget);
  }
  for (i = 0; i < n_tries; i++) {
    if ((ret = try_fallback (c, fix, calib, dg, ecal, r, base_host, before,
                &tries[i], fb, error)) < 0)
      goto out;
    last = (int) i;
    if (tries[i].gained && (best < 0
            || fallback_better (g, tries[i].db, tries[best].db)))
      best = (int) i;
  }
  /* the head and the tail together, when each paid alone */
  if (have_tail && tries[0].gained && best > 0) {
    for (k = 0; k < g->n_nodes; k++)
      host[k] = tries[0].host[k] || tries[best].host[k];
    add_try (tries, &n_tries, g, "both", host, MAX ((double) budget,
            tries[0].moved_macs));
    if ((ret = try_fallback (c, fix, calib, dg, ecal, r, base_host, before,
                &tries[n_tries - 1], fb, error)) < 0)
      goto out;
    last = (int) n_tries - 1;
    if (tries[last].gained && fallback_better (g, tries[last].db,
            tries[best].db))
      best = last;
  }
  if (n_tries == 0)
    goto out;
  if (best != last) {
    if (best >= 0)
      memcpy (c->force_host, tries[best].host, g->n_nodes * sizeof (bool));
    else
      memset (c->force_host, 0, g->n_nodes * sizeof (bool));
    if ((ret = requantize (c, fix, calib, dg, ecal, r, error)) < 0)
      goto out;
  }
  if (best < 0) {
    g_string_append (fb, "  host fallback undone: the model's outputs "
        "measured no better with it\n");
    goto out;
  }
  g_string_append_printf (fb, "  host fallback kept: %s; measured on the "
      "calibration set (dB per output of the model, over its foreground if "
      "any):\n", tries[best].what);
  for (i = 0; i < g->n_outputs; i++)
    g_string_append_printf (fb, "    %-40s %6.1f -> %6.1f\n",
        g->tensors[g->outputs[i]].name, before[i], tries[best].db[i]);
  r->techniques_applied |= SIMNPU_TECHNIQUE_HOST_FALLBACK;
  r->n_fallback = 0;
  for (k = 0; k < g->n_nodes; k++)
    r->n_fallback += base_place[k] == SIMNPU_SECTION_DEVICE
        && c->place[k] != SIMNPU_SECTION_DEVICE;

out:
  for (i = 0; i < n_tries; i++) {
    g_free (tries[i].host);
    g_free (tries[i].db);
  }
  g_free (host);
  g_free (before);
  g_free (base_place);
  return ret;
}

int
simnpu__compile (simnpu__ir_graph * g, const simnpu__compile_options * o,
    simnpu__graph ** out, simnpu__compile_result * r, simnpu_error * error)
{
  compile_ctx c = { 0 };
  GPtrArray *calib = o->calibration, *owned = NULL;
  GPtrArray *valid = o->validation, *calib_sets = NULL, *valid_sets = NULL;
  simnpu__graph *dg = NULL;
  chan_stats *stats = NULL;
  /* the statistics bias correction uses, or NULL */
  const chan_stats *fix = NULL;
  evaluator ecal = { 0 }, eval = { 0 };
  bool have_valid = o->validation && o->validation->len > 0;
  GString *fb = g_string_new (NULL);
  unsigned i;
  int ret;

  *out = NULL;
  memset (r, 0, sizeof (*r));
  r->text = g_string_new (NULL);
  if (g->n_inputs == 0)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "the model has no inputs");
  if (g->tensors[g->inputs[0]].dtype != SIMNPU_IR_F32)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "input '%s' is %s; expected a float input",
        g->tensors[g->inputs[0]].name,
        simnpu__ir_dtype_name (g->tensors[g->inputs[0]].dtype));
  if ((ret = simnpu__quantize_split_activations (g, error)) < 0
      || (ret = simnpu__quantize_pass_inputs (g, &c.host_only, error)) < 0) {
    g_free (c.host_only);
    return ret;
  }

  c.g = g;
  c.opts = o;
  if ((ret = simnpu__quantize_check_inputs (&c, error)) < 0) {
    g_free (c.state_of);
    g_free (c.host_only);
    return ret;
  }
  c.place = g_new0 (simnpu__section, g->n_nodes);
  c.force_host = g_new0 (bool, g->n_nodes);
  c.consumers = g_new0 (int, g->n_tensors);
  c.reader = g_new0 (int, g->n_tensors);
  for (i = 0; i < g->n_nodes; i++) {
    unsigned j;
    for (j = 0; j < g->nodes[i].n_inputs; j++)
      if (g->nodes[i].inputs[j] >= 0) {
        c.consumers[g->nodes[i].inputs[j]]++;
        c.reader[g->nodes[i].inputs[j]] = (int) i;
      }
  }
  c.has_q = g_new0 (bool, g->n_tensors);
  c.q_scale = g_new0 (float, g->n_tensors);
  c.q_zp = g_new0 (int32_t, g->n_tensors);
  c.is_logit = g_new0 (bool, g->n_tensors);
  c.clamp_lo = g_new (float, g->n_tensors);
  c.clamp_hi = g_new (float, g->n_tensors);
  c.search_ranges = (o->techniques & SIMNPU_TECHNIQUE_MSE_RANGES) != 0;
  if ((ret = simnpu__quantize_place_nodes (&c, error)) < 0
      || (ret = simnpu__quantize_check_device_size (&c, error)) < 0)
    goto out;
  simnpu__quantize_report_placement (&c, r);
  if ((c.exec = simnpu__ir_exec_new (g, error)) == NULL) {
    ret = error->code ? error->code : SIMNPU_ENOMEM;
    goto out;
  }
  if (calib == NULL || calib->len == 0) {
    GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
    owned = g_ptr_array_new_with_free_func (g_free);
    for (i = 0; i < N_RANDOM_INPUTS; i++)
      g_ptr_array_add (owned,
          simnpu__quantize_random_input (&g->tensors[g->inputs[0]], o, rand));
    g_rand_free (rand);
    calib = owned;
  }
  if (g->n_inputs > 1) {
    /* each image with the recurrent states it is run with */
    if ((calib_sets = simnpu__quantize_input_sets (&c, calib, error)) == NULL
        || (have_valid && (valid = valid_sets =
                simnpu__quantize_input_sets (&c, o->validation,
                    error)) == NULL)) {
      ret = error->code ? error->code : SIMNPU_ENOMEM;
      goto out;
    }
    calib = calib_sets;
  }
  stats = simnpu__quantize_stats_for_conv_inputs (&c);
  if ((ret = simnpu__quantize_calibrate (&c, calib, stats, error)) < 0)
    goto out;
  if ((o->techniques & SIMNPU_TECHNIQUE_EQUALIZATION)
      && (r->n_equalized = simnpu__quantize_equalize (&c, stats)) > 0) {
    /* the executor packed the old weights; ranges and means moved */
    simnpu__ir_exec_free (c.exec);
    if ((c.exec = simnpu__ir_exec_new (g, error)) == NULL) {
      ret = error->code ? error->code : SIMNPU_ENOMEM;
      goto out;
    }
    simnpu__quantize_chan_stats_free (stats, g->n_tensors);
    stats = simnpu__quantize_stats_for_conv_inputs (&c);
    if ((ret = simnpu__quantize_calibrate (&c, calib, stats, error)) < 0)
      goto out;
    r->techniques_applied |= SIMNPU_TECHNIQUE_EQUALIZATION;
  }
  if (!(o->techniques & SIMNPU_TECHNIQUE_MSE_RANGES)
      && (o->techniques & SIMNPU_TECHNIQUE_MEASURED_RANGES)
      && calib->len >= 2) {
    if ((ret = choose_ranges (&c, (o->techniques &
                    SIMNPU_TECHNIQUE_BIAS_CORRECTION) ? stats : NULL, calib,
                fb, error)) < 0)
      goto out;
  }
  if (c.search_ranges)
    r->techniques_applied |= SIMNPU_TECHNIQUE_MSE_RANGES;
  if (o->techniques & SIMNPU_TECHNIQUE_BIAS_CORRECTION) {
    fix = stats;
    r->techniques_applied |= SIMNPU_TECHNIQUE_BIAS_CORRECTION;
  }
  if ((ret = simnpu__quantize_assign_quant (&c, error)) < 0
      || (ret = simnpu__quantize_lower (&c, fix, &dg, error)) < 0)
    goto out;

  simnpu__quantize_evaluator_init (&ecal, dg, g);
  if ((ret = simnpu__quantize_evaluate (&c, dg, calib, &ecal, error)) < 0)
    goto out;
  if ((o->techniques & SIMNPU_TECHNIQUE_HOST_FALLBACK)
      && (ret = host_fallback (&c, fix, calib, &dg, &ecal, r, fb, error)) < 0)
    goto out;
  g_string_append (r->text, fb->str);
  if (c.n_per_tensor_consts > 0)
    g_string_append_printf (r->text, "  per-tensor constants: %u (first "
        "'%s', read by '%s' (%s)): the device's element-wise ops take one "
        "scale per operand; conv and matmul weights are per output "
        "channel\n", c.n_per_tensor_consts,
        g->tensors[c.first_per_tensor_const].name,
        g->nodes[c.first_per_tensor_reader].name,
        simnpu__ir_op_name (g->nodes[c.first_per_tensor_reader].op));
  else
    g_string_append (r->text, "  weights: every constant the device reads "
        "is per output channel (conv, matmul) or a single value\n");
  if (c.hist)
    g_string_append_printf (r->text, "  activation ranges: %u of %u "
        "searched for the least int8 error narrowed from min/max (outputs "
        "and logits keep min/max)\n", c.n_narrowed, c.n_searched);
  if (c.n_widened > 0) {
    unsigned n_arith = c.n_widened - c.n_widened_const;
    g_string_append_printf (r->text, "  requantiser limits: %u result%s "
        "finer than the device's requantiser reaches from the node's int8 "
        "inputs, widened:\n%s", c.n_widened, c.n_widened == 1 ? "" : "s",
        c.widened_text->str);
    if (n_arith > 0) {
      const simnpu__ir_node *fn =
          &g->nodes[g->tensors[c.first_widened].producer];
      g_printerr ("simnpu-compile: warning: %u node%s of the model (first "
          "'%s' (%s)) make%s results constant or finer than the device's "
          "requantiser reaches from their int8 inputs (the model's own "
          "arithmetic, not the calibration images): their ranges are "
          "widened to the narrowest it takes; the report's 'requantiser "
          "limits' names each\n", n_arith, n_arith == 1 ? "" : "s", fn->name,
          simnpu__ir_op_name (fn->op), n_arith == 1 ? "s" : "");
    }
    if (c.n_widened_const > 0)
      g_printerr ("simnpu-compile: warning: every calibration input is "
          "the same, which gives %u tensor%s (first '%s') one value: "
          "widened to the narrowest range the device takes, other inputs "
          "will saturate there; calibrate on varied, representative "
          "images\n", c.n_widened_const, c.n_widened_const == 1 ? "" : "s",
          g->tensors[c.first_widened_const].name);
  }
  if (have_valid) {
    simnpu__quantize_evaluator_init (&eval, dg, g);
    if ((ret = simnpu__quantize_evaluate (&c, dg, valid, &eval, error)) < 0)
      goto out;
  }
  simnpu__quantize_report_accuracy (&c, dg, &ecal, &eval, have_valid, r);

  if ((ret =
          simnpu__quantize_extract_section (&c, SIMNPU_SECTION_PREAMBLE,
              &dg->preamble, error)) < 0
      || (ret =
          simnpu__quantize_extract_section (&c, SIMNPU_SECTION_POSTAMBLE,
              &dg->postamble, error)) < 0)
    goto out;
  if (dg->postamble && o->output_dtype != SIMNPU_DTYPE_F32)
    simnpu__quantize_set_postamble_quant (&c, dg, o->output_dtype);
  if (dg->postamble) {
    unsigned n = dg->postamble->n_outputs;
    sqnr_acc *pc = g_new0 (sqnr_acc, n), *pv = g_new0 (sqnr_acc, n);
    ret = simnpu__quantize_evaluate_public (&c, dg, calib, pc, error);
    if (ret == 0 && have_valid)
      ret = simnpu__quantize_evaluate_public (&c, dg, valid, pv, error);
    if (ret == 0)
      simnpu__quantize_report_public (dg, pc, have_valid ? pv : NULL, r->text);
    g_free (pc);
    g_free (pv);
    if (ret < 0)
      goto out;
  }
  /* the outputs themselves, for a task's own measure of agreement
   * (bench/zoo) */
  if (g_getenv ("SIMNPU_COMPILE_DUMP_OUTPUTS") && (ret =
          simnpu__quantize_dump_outputs (&c, dg, calib,
              g_getenv ("SIMNPU_COMPILE_DUMP_OUTPUTS"), error)) < 0)
    goto out;
  dg->has_preprocess = o->has_preprocess;
  dg->preprocess = o->preprocess;
  dg->decoder = g_strdup (o->decoder);
  if (o->labels) {
    dg->n_labels = g_strv_length (o->labels);
    dg->labels = g_strdupv (o->labels);
  }
  r->n_nodes = g->n_nodes;
  r->placement = g_memdup2 (c.place, g->n_nodes * sizeof (simnpu__section));
  *out = dg;
  dg = NULL;
  ret = 0;

out:
  if (ecal.arena)
    simnpu__quantize_evaluator_clear (&ecal);
  if (eval.arena)
    simnpu__quantize_evaluator_clear (&eval);
  simnpu__quantize_chan_stats_free (stats, g->n_tensors);
  simnpu__quantize_tap_stats_free (c.taps, g->n_nodes);
  simnpu__graph_free (dg);
  simnpu__ir_exec_free (c.exec);
  if (owned)
    g_ptr_array_unref (owned);
  if (calib_sets)
    g_ptr_array_unref (calib_sets);
  if (valid_sets)
    g_ptr_array_unref (valid_sets);
  g_free (c.state_of);
  g_free (c.host_only);
  g_string_free (fb, TRUE);
  g_free (c.place);
  g_free (c.force_host);
  g_free (c.consumers);
  g_free (c.reader);
  g_free (c.has_q);
  g_free (c.q_scale);
  g_free (c.q_zp);
  g_free (c.is_logit);
  g_free (c.clamp_lo);
  g_free (c.clamp_hi);
  simnpu__quantize_hist_free (c.hist, g->n_tensors);
  if (c.widened_text)
    g_string_free (c.widened_text, TRUE);
  return ret;
}
