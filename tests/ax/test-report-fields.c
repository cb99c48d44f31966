/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Every field of the report's field table (gst/ax/gstaxreport-fields.def),
 * walked from the table itself: each one set to a value of its own, the
 * report written to JSON and read back, and copied, field for field the
 * same, and a verdict copied; the "absent" reasons and the refusal the
 * same way; every array read back through its accessors, and every
 * member of a row in gst_ax_report_get_rows (); and every JSON member the
 * table names documented in docs/report-json.md. A field added to the
 * table is in these checks without a line here. */

#include <gst/check/gstcheck.h>
#include <gst/ax/gstaxreport.h>
#include <dlfcn.h>
#include <math.h>
#include <string.h>

typedef struct _TestStruct TestStruct;

typedef struct
{
  const gchar *name;
  const gchar *type;
  gsize offset;
  const gchar *key;
  const gchar *section;
  const TestStruct *elem;
  /* ARRAY, PTR_ARRAY: what the accessor of one entry calls it */
  const gchar *item;
} TestField;

struct _TestStruct
{
  const gchar *name;
  const TestField *fields;
  guint n_fields;
};

/* the table's rows, read here independently of the library's own
 * descriptors (gstaxreport-fields.c) */
#define STRUCT(T, padding, doc) static const TestField T##_fields[] = {
#define FIELD(T, type, name, key, section, flags, unit, doc) \
  { #name, #type, G_STRUCT_OFFSET (T, name), key, #section, NULL, NULL },
#define FIELD_IF(T, type, name, key, section, flags, cond, unit, doc) \
  FIELD (T, type, name, key, section, flags, unit, doc)
#define ARRAY(T, elem, name, key, section, flags, item, doc) \
  { #name, "ARRAY", G_STRUCT_OFFSET (T, name), key, #section, &elem##_t, \
    #item },
#define PTR_ARRAY(T, elem, name, key, section, flags, item, doc) \
  { #name, "PTR_ARRAY", G_STRUCT_OFFSET (T, name), key, #section, \
    &elem##_t, #item },
#define NESTED(T, sub, name, key, section, flags, doc) \
  { #name, "NESTED", G_STRUCT_OFFSET (T, name), key, #section, &sub##_t, \
    NULL },
#define COMPUTED(T, name, key, section, func, unit, doc) \
  { #name, "COMPUTED", 0, key, #section, NULL, NULL },
#define OWNED(T, ctype, name, doc)
#define PRIVATE(T, ctype, name)
#define END(T) \
  }; \
  static const TestStruct T##_t = { #T, T##_fields, \
    G_N_ELEMENTS (T##_fields) };

#include <gst/ax/gstaxreport-fields.def>

#define AT(object, f, ctype) (*(ctype *) ((guint8 *) (object) + (f)->offset))

static gboolean
is (const TestField * f, const gchar * type)
{
  return strcmp (f->type, type) == 0;
}

/* A field the JSON carries no member of its own for, that the reader
 * derives (have_sim_cpu, occupancy_index). */
static gboolean
derived (const TestField * f)
{
  return f->key == NULL || is (f, "COMPUTED");
}

/* The "absent" reasons: strings in no section, written in place of a
 * whole section. */
static gboolean
absent_reason (const TestField * f)
{
  return is (f, "STRING") && strcmp (f->section, "NONE") == 0 && f->key &&
      strcmp (f->key, "absent") == 0;
}

typedef enum
{
  FILL_VALUES,
  FILL_ABSENT,
} FillMode;

static gpointer add_element (const TestField * f, gpointer parent);

/* Every field of @object a value of its own (the derived ones too: a
 * derived condition of a FIELD_IF set lets its number be written): *k
 * counts the fields. The refusal stays NULL (a refused report carries
 * nothing else) and so do the absent reasons (FILL_ABSENT sets those
 * alone). */
static void
fill (const TestStruct * t, gpointer object, FillMode mode, guint * k)
{
  guint i, e;

  for (i = 0; i < t->n_fields; i++) {
    const TestField *f = &t->fields[i];

    if (is (f, "COMPUTED"))
      continue;
    (*k)++;
    if (mode == FILL_ABSENT) {
      if (absent_reason (f))
        AT (object, f, gchar *) = g_strdup_printf ("no %s (%u)", f->name, *k);
      continue;
    }
    if (absent_reason (f) || strcmp (f->name, "refusal") == 0)
      continue;
    if (is (f, "STRING")) {
      AT (object, f, gchar *) = g_strdup_printf ("%s \"%u\"", f->name, *k);
    } else if (is (f, "DOUBLE")) {
      AT (object, f, gdouble) = *k + 0.25;
    } else if (is (f, "INT") || is (f, "RANK")) {
      AT (object, f, gint) = *k;
    } else if (is (f, "UINT") || is (f, "POSITIVE")) {
      AT (object, f, guint) = *k;
    } else if (is (f, "UINT64")) {
      AT (object, f, guint64) = (G_GUINT64_CONSTANT (1) << 40) + *k;
    } else if (is (f, "BOOL") || is (f, "PASS")) {
      AT (object, f, gboolean) = !AT (object, f, gboolean);
    } else if (is (f, "ROW_FLAGS")) {
      AT (object, f, GstAxReportRowFlags) =
          GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT |
          GST_AX_REPORT_ROW_FLAG_STRONGLY_BLOCKED |
          GST_AX_REPORT_ROW_FLAG_WORKERS;
    } else if (is (f, "ROW_KIND")) {
      AT (object, f, GstAxReportRowKind) = GST_AX_REPORT_ROW_KIND_REPORTED;
    } else if (is (f, "STATUS")) {
      /* the status that writes every section, the interval's too */
      AT (object, f, GstAxReportStatus) = GST_AX_REPORT_STATUS_INTERVAL;
    } else if (is (f, "CONSTRAINT")) {
      AT (object, f, GstAxReportConstraintKind) =
          GST_AX_REPORT_CONSTRAINT_DROPS;
    } else if (is (f, "STRV")) {
      if (AT (object, f, GPtrArray *) == NULL)
        AT (object, f, GPtrArray *) = g_ptr_array_new_with_free_func (g_free);
      for (e = 0; e < 2; e++)
        g_ptr_array_add (AT (object, f, GPtrArray *),
            g_strdup_printf ("%s[%u] %u", f->name, e, *k));
    } else if (is (f, "ARRAY") || is (f, "PTR_ARRAY")) {
      for (e = 0; e < 2; e++)
        fill (f->elem, add_element (f, object), mode, k);
    } else if (is (f, "NESTED")) {
      fill (f->elem, (guint8 *) object + f->offset, mode, k);
    } else {
      fail ("%s.%s: type %s unknown to the test", t->name, f->name, f->type);
    }
  }
}

/* A new element of the array field @f of @parent, through the public
 * constructors where the element owns arrays of its own. */
static gpointer
add_element (const TestField * f, gpointer parent)
{
  const gchar *elem = f->elem->name;

  if (strcmp (elem, "GstAxReportGroup") == 0)
    return gst_ax_report_add_group (parent, NULL);
  if (strcmp (elem, "GstAxReportRow") == 0)
    return gst_ax_report_group_add_row (parent, NULL);
  if (strcmp (elem, "GstAxReportDeviceOccupancy") == 0)
    return gst_ax_report_add_device_occupancy (parent, NULL, 0);
  if (strcmp (elem, "GstAxReportModelShare") == 0) {
    GstAxReportDeviceOccupancy *o = parent;

    gst_ax_report_device_occupancy_add_model (o, NULL, 0);
    return &g_array_index (o->models, GstAxReportModelShare,
        o->models->len - 1);
  } else {
    GArray *a = AT (parent, f, GArray *);

    fail_if (is (f, "PTR_ARRAY"), "%s: no constructor known", elem);
    g_array_set_size (a, a->len + 1);
    return a->data + (a->len - 1) * g_array_get_element_size (a);
  }
}

/* @a and @b the same in every field (but the derived ones, unless
 * @with_derived); @distinct: their strings and arrays not shared */
static void
compare (const TestStruct * t, gconstpointer a, gconstpointer b,
    const gchar * where, gboolean with_derived, gboolean distinct)
{
  guint i, e;

  for (i = 0; i < t->n_fields; i++) {
    const TestField *f = &t->fields[i];
    gchar *w = g_strdup_printf ("%s.%s", where, f->name);

    if (is (f, "COMPUTED") || (derived (f) && !with_derived)) {
      g_free (w);
      continue;
    }
    if (is (f, "STRING")) {
      const gchar *x = AT (a, f, gchar *), *y = AT (b, f, gchar *);

      fail_unless (g_strcmp0 (x, y) == 0, "%s: '%s' became '%s'", w, x, y);
      fail_if (distinct && x && x == y, "%s: shared", w);
    } else if (is (f, "DOUBLE")) {
      gdouble x = AT (a, f, gdouble), y = AT (b, f, gdouble);

      fail_unless (x == y || (isnan (x) && isnan (y)),
          "%s: %.17g became %.17g", w, x, y);
    } else if (is (f, "UINT64")) {
      fail_unless (AT (a, f, guint64) == AT (b, f, guint64),
          "%s: %" G_GUINT64_FORMAT " became %" G_GUINT64_FORMAT, w,
          AT (a, f, guint64), AT (b, f, guint64));
    } else if (is (f, "STRV")) {
      const GPtrArray *x = AT (a, f, GPtrArray *), *y = AT (b, f, GPtrArray *);

      fail_unless ((x == NULL) == (y == NULL), "%s: NULL or not", w);
      fail_unless (x == NULL || x->len == y->len, "%s: length", w);
      for (e = 0; x && e < x->len; e++)
        fail_unless_equals_string (g_ptr_array_index (x, e),
            g_ptr_array_index (y, e));
      fail_if (distinct && x && x == y, "%s: shared", w);
    } else if (is (f, "ARRAY")) {
      const GArray *x = AT (a, f, GArray *), *y = AT (b, f, GArray *);
      gsize size = g_array_get_element_size ((GArray *) x);

      fail_unless_equals_int (x->len, y->len);
      fail_if (distinct && x == y, "%s: shared", w);
      for (e = 0; e < x->len; e++) {
        gchar *we = g_strdup_printf ("%s[%u]", w, e);

        compare (f->elem, x->data + e * size, y->data + e * size, we,
            with_derived, distinct);
        g_free (we);
      }
    } else if (is (f, "PTR_ARRAY")) {
      const GPtrArray *x = AT (a, f, GPtrArray *), *y = AT (b, f, GPtrArray *);

      fail_unless_equals_int (x->len, y->len);
      fail_if (distinct && x == y, "%s: shared", w);
      for (e = 0; e < x->len; e++) {
        gchar *we = g_strdup_printf ("%s[%u]", w, e);

        compare (f->elem, g_ptr_array_index (x, e), g_ptr_array_index (y, e),
            we, with_derived, distinct);
        g_free (we);
      }
    } else if (is (f, "NESTED")) {
      compare (f->elem, (const guint8 *) a + f->offset,
          (const guint8 *) b + f->offset, w, with_derived, distinct);
    } else {
      /* the int-sized ones: INT, UINT, POSITIVE, BOOL, RANK, PASS, enums */
      fail_unless (AT (a, f, gint) == AT (b, f, gint), "%s: %d became %d", w,
          AT (a, f, gint), AT (b, f, gint));
    }
    g_free (w);
  }
}

static GstAxReport *
round_trip (const GstAxReport * r)
{
  gchar *json = gst_ax_report_to_json (r), *json2;
  GError *err = NULL;
  GstAxReport *back = gst_ax_report_new_from_json (json, &err);

  fail_unless (back != NULL, "%s", err ? err->message : "?");
  json2 = gst_ax_report_to_json (back);
  fail_unless_equals_string (json2, json);
  g_free (json2);
  g_free (json);
  return back;
}

GST_START_TEST (test_every_field_round_trips)
{
  GstAxReport *r = gst_ax_report_new (), *back;
  guint k = 0;

  fill (&GstAxReport_t, r, FILL_VALUES, &k);
  /* the table was walked into every sub-struct */
  fail_unless (k > 200, "only %u fields filled", k);
  fail_unless_equals_int (r->groups->len, 2);
  fail_unless_equals_int (((GstAxReportGroup *) g_ptr_array_index (r->groups,
              1))->rows->len, 2);
  back = round_trip (r);
  compare (&GstAxReport_t, r, back, "report", FALSE, TRUE);
  /* the one derived from a member: the simulator's CPU is not null */
  fail_unless (back->have_sim_cpu);
  gst_ax_report_unref (back);
  gst_ax_report_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_every_field_copies)
{
  GstAxReport *r = gst_ax_report_new (), *copy;
  guint k = 0;

  fill (&GstAxReport_t, r, FILL_VALUES, &k);
  r->devices_absent = g_strdup ("absent devices");
  r->have_sim_cpu = TRUE;
  g_array_index (r->devices, GstAxReportDevice, 1).occupancy_index = 2;
  copy = gst_ax_report_copy (r);
  compare (&GstAxReport_t, r, copy, "report", TRUE, TRUE);
  gst_ax_report_unref (r);
  /* the copy owns all it holds */
  fail_unless_equals_string (copy->devices_absent, "absent devices");
  fail_unless_equals_int (g_array_index (copy->devices, GstAxReportDevice,
          1).occupancy_index, 2);
  gst_ax_report_unref (copy);
}

GST_END_TEST;

GST_START_TEST (test_verdict_copies)
{
  GstAxReportVerdict *v = g_new0 (GstAxReportVerdict, 1), *copy;
  guint k = 0;

  fill (&GstAxReportVerdict_t, v, FILL_VALUES, &k);
  fail_unless (k >= 10 && v->steps->len == 2 && v->simulator_lags);
  copy = gst_ax_report_verdict_copy (v);
  compare (&GstAxReportVerdict_t, v, copy, "verdict", TRUE, TRUE);
  gst_ax_report_verdict_free (v);
  gst_ax_report_verdict_free (copy);
}

GST_END_TEST;

GST_START_TEST (test_absent_reasons_round_trip)
{
  GstAxReport *r = gst_ax_report_new (), *back;
  guint k = 0;

  fill (&GstAxReport_t, r, FILL_ABSENT, &k);
  fail_unless (r->latency_absent && r->groups_absent && r->share_absent &&
      r->throughput_absent && r->queues_absent && r->devices_absent &&
      r->cpu_absent);
  back = round_trip (r);
  compare (&GstAxReport_t, r, back, "report", FALSE, TRUE);
  gst_ax_report_unref (back);
  gst_ax_report_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_refused_report_round_trips)
{
  GstAxReport *r = gst_ax_report_new (), *back;
  gchar *json;

  r->refusal = g_strdup ("DEBUG logging is on");
  r->sample = 7;
  back = round_trip (r);
  compare (&GstAxReport_t, r, back, "report", FALSE, TRUE);
  json = gst_ax_report_to_json (back);
  fail_if (strstr (json, "\"latency\""), "a refused report has no latency");
  g_free (json);
  gst_ax_report_unref (back);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* GstAxReportDeviceOccupancy: gst_ax_report_device_occupancy */
static gchar *
function_prefix (const gchar * struct_name)
{
  GString *s = g_string_new (NULL);
  const gchar *c;

  for (c = struct_name; *c; c++) {
    if (g_ascii_isupper (*c) && c != struct_name)
      g_string_append_c (s, '_');
    g_string_append_c (s, g_ascii_tolower (*c));
  }
  return g_string_free (s, FALSE);
}

typedef guint (*GetN) (gconstpointer owner);
typedef gconstpointer (*GetItem) (gconstpointer owner, guint index);

/* Every array of @object through its accessors, the generated
 * <prefix>_get_n_<name> () and <prefix>_get_<item> (), found by name:
 * the same entries as the array holds; in the entries, their arrays. */
static void
check_accessors (const TestStruct * t, gconstpointer object, guint * n)
{
  gchar *prefix = function_prefix (t->name);
  guint i, e;

  for (i = 0; i < t->n_fields; i++) {
    const TestField *f = &t->fields[i];
    gchar *get_n_name, *get_name;
    GetN get_n;
    GetItem get;
    guint len;

    if (is (f, "NESTED"))
      check_accessors (f->elem, (const guint8 *) object + f->offset, n);
    if (!is (f, "ARRAY") && !is (f, "PTR_ARRAY"))
      continue;
    get_n_name = g_strdup_printf ("%s_get_n_%s", prefix, f->name);
    get_name = g_strdup_printf ("%s_get_%s", prefix, f->item);
    get_n = (GetN) dlsym (RTLD_DEFAULT, get_n_name);
    get = (GetItem) dlsym (RTLD_DEFAULT, get_name);
    fail_unless (get_n && get, "%s.%s: no %s () or %s ()", t->name, f->name,
        get_n_name, get_name);
    len = is (f, "ARRAY") ? AT (object, f, GArray *)->len :
        AT (object, f, GPtrArray *)->len;
    fail_unless (len > 0, "%s.%s: empty", t->name, f->name);
    fail_unless_equals_int (get_n (object), len);
    for (e = 0; e < len; e++) {
      gconstpointer entry = is (f, "ARRAY") ?
          (gconstpointer) (AT (object, f, GArray *)->data +
          e * g_array_get_element_size (AT (object, f, GArray *))) :
          g_ptr_array_index (AT (object, f, GPtrArray *), e);

      fail_unless (get (object, e) == entry, "%s (%u)", get_name, e);
      check_accessors (f->elem, entry, n);
    }
    (*n)++;
    g_free (get_n_name);
    g_free (get_name);
  }
  g_free (prefix);
}

GST_START_TEST (test_every_array_has_accessors)
{
  GstAxReport *r = gst_ax_report_new ();
  guint k = 0, n = 0;

  fill (&GstAxReport_t, r, FILL_VALUES, &k);
  check_accessors (&GstAxReport_t, r, &n);
  /* the report's arrays, and those in their entries, once per entry */
  fail_unless (n >= 8, "only %u arrays", n);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* gst_ax_report_get_rows (): every JSON member of a row, from the table,
 * an entry of each row's dictionary. */
GST_START_TEST (test_rows_variant_has_every_member)
{
  GstAxReport *r = gst_ax_report_new ();
  GVariant *rows, *d;
  guint k = 0, i;
  gdouble mean;

  fill (&GstAxReport_t, r, FILL_VALUES, &k);
  rows = gst_ax_report_get_rows (r);
  fail_unless_equals_int (g_variant_n_children (rows), 4);
  d = g_variant_get_child_value (rows, 3);
  for (i = 0; i < GstAxReportRow_t.n_fields; i++) {
    const TestField *f = &GstAxReportRow_t.fields[i];
    GVariant *v;

    if (f->key == NULL)
      continue;
    v = g_variant_lookup_value (d, f->key, NULL);
    fail_unless (v != NULL, "no %s in a row's dictionary", f->key);
    g_variant_unref (v);
  }
  fail_unless (g_variant_lookup (d, "mean_ms", "d", &mean));
  fail_unless (mean == g_array_index (((GstAxReportGroup *)
              g_ptr_array_index (r->groups, 1))->rows, GstAxReportRow,
          1).mean_ms);
  g_variant_unref (d);
  g_variant_unref (rows);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* The structs are public and padded: a field added after a release takes
 * its room from the struct's _gst_reserved (the padding of its STRUCT
 * row), so that their size never changes. Their sizes on LP64. */
GST_START_TEST (test_sizes_kept)
{
#if GLIB_SIZEOF_VOID_P == 8
  static const struct
  {
    const gchar *name;
    gsize size, expected;
  } sizes[] = {
    {"GstAxReportRow", sizeof (GstAxReportRow), 152},
    {"GstAxReportThread", sizeof (GstAxReportThread), 80},
    {"GstAxReportGroup", sizeof (GstAxReportGroup), 64},
    {"GstAxReportQueue", sizeof (GstAxReportQueue), 176},
    {"GstAxReportQos", sizeof (GstAxReportQos), 72},
    {"GstAxReportDevice", sizeof (GstAxReportDevice), 152},
    {"GstAxReportModelShare", sizeof (GstAxReportModelShare), 56},
    {"GstAxReportDeviceOccupancy", sizeof (GstAxReportDeviceOccupancy), 88},
    {"GstAxReportStream", sizeof (GstAxReportStream), 64},
    {"GstAxReportLatency", sizeof (GstAxReportLatency), 112},
    {"GstAxReportVerdict", sizeof (GstAxReportVerdict), 112},
    {"GstAxReport", sizeof (GstAxReport), 840},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++)
    fail_unless (sizes[i].size == sizes[i].expected,
        "%s is %" G_GSIZE_FORMAT " bytes, was %" G_GSIZE_FORMAT ": take a "
        "new field's room from the padding of its STRUCT row in "
        "gstaxreport-fields.def", sizes[i].name, sizes[i].size,
        sizes[i].expected);
#endif
}

GST_END_TEST;

static void
check_documented (const TestStruct * t, const gchar * doc)
{
  guint i;

  for (i = 0; i < t->n_fields; i++) {
    const TestField *f = &t->fields[i];
    gchar *quoted, *array;

    if (f->key) {
      quoted = g_strdup_printf ("`%s`", f->key);
      array = g_strdup_printf ("`%s[]`", f->key);
      fail_unless (strstr (doc, quoted) || strstr (doc, array),
          "%s.%s: its JSON member %s is not in docs/report-json.md",
          t->name, f->name, quoted);
      g_free (array);
      g_free (quoted);
    }
    if (f->elem)
      check_documented (f->elem, doc);
  }
}

GST_START_TEST (test_every_member_documented)
{
  gchar *doc;
  GError *err = NULL;

  fail_unless (g_file_get_contents (AX_REPORT_JSON_DOC, &doc, NULL, &err),
      "%s", err ? err->message : "?");
  check_documented (&GstAxReport_t, doc);
  g_free (doc);
}

GST_END_TEST;

static Suite *
report_fields_suite (void)
{
  Suite *s = suite_create ("report-fields");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_every_field_round_trips);
  tcase_add_test (tc, test_every_field_copies);
  tcase_add_test (tc, test_verdict_copies);
  tcase_add_test (tc, test_absent_reasons_round_trip);
  tcase_add_test (tc, test_refused_report_round_trips);
  tcase_add_test (tc, test_every_array_has_accessors);
  tcase_add_test (tc, test_rows_variant_has_every_member);
  tcase_add_test (tc, test_every_member_documented);
  tcase_add_test (tc, test_sizes_kept);
  return s;
}

GST_CHECK_MAIN (report_fields);
