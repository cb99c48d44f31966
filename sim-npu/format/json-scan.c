/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Scans of a JSON text before it is parsed: its nesting depth and
 * integer literals json-glib would wrap (format.h). */

#include "format-private.h"

#include <string.h>

/* the integer scan (simnpu__json_find_bad_int): the path it can name */
#define INT_SCAN_MAX_DEPTH SIMNPU__MAX_JSON_DEPTH
#define INT_SCAN_KEY_BYTES 64
#define INT_SCAN_PATH_BYTES 256
#define INT_SCAN_SHOWN_DIGITS 40

unsigned
simnpu__json_depth (const char *data, size_t size)
{
  unsigned depth = 0, deepest = 0;
  bool in_string = false;
  size_t i;

  for (i = 0; i < size; i++) {
    char c = data[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      /* not inside MAX (), which evaluates its arguments twice */
      depth++;
      deepest = MAX (deepest, depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

/* One open array or object of the integer scan: its key or index, for
 * the path in the message. */
typedef struct
{
  bool is_array;
  bool want_key;
  unsigned index;
  char key[INT_SCAN_KEY_BYTES];
} scan_frame;

/* Whether the integer literal @s (sign and digits) fits an int64. */
static bool
int_literal_fits (const char *s, size_t n)
{
  static const char max_digits[] = "9223372036854775807";
  bool neg = n > 0 && s[0] == '-';
  size_t i = neg ? 1 : 0, digits;
  int cmp;

  while (i + 1 < n && s[i] == '0')
    i++;
  digits = n - i;
  if (digits != sizeof (max_digits) - 1)
    return digits < sizeof (max_digits) - 1;
  cmp = memcmp (s + i, max_digits, digits);
  /* -9223372036854775808 is INT64_MIN */
  return cmp <= 0 || (neg
      && memcmp (s + i, "9223372036854775808", digits) == 0);
}

static void
scan_path (const scan_frame * st, unsigned depth, char *path, size_t size)
{
  GString *p = g_string_new ("$");
  unsigned d;

  for (d = 0; d < MIN (depth, INT_SCAN_MAX_DEPTH); d++) {
    if (st[d].is_array)
      g_string_append_printf (p, "[%u]", st[d].index);
    else
      g_string_append_printf (p, ".%s", st[d].key);
  }
  g_strlcpy (path, p->str, size);
  g_string_free (p, TRUE);
}

bool
simnpu__json_find_bad_int (const char *data, size_t size, char *msg,
    size_t msg_size)
{
  scan_frame st[INT_SCAN_MAX_DEPTH];
  unsigned depth = 0;
  size_t i = 0;

  while (i < size) {
    char c = data[i];
    scan_frame *top = depth > 0 && depth <= INT_SCAN_MAX_DEPTH ?
        &st[depth - 1] : NULL;
    if (c == '"') {
      size_t j = i + 1;
      while (j < size && data[j] != '"')
        j += data[j] == '\\' ? 2 : 1;
      /* a backslash at the very end steps past it */
      if (j > size)
        j = size;
      if (top && !top->is_array && top->want_key) {
        size_t n = MIN (j - i - 1, sizeof (top->key) - 1);
        memcpy (top->key, data + i + 1, n);
        top->key[n] = '\0';
        top->want_key = false;
      }
      i = j + 1;
    } else if (c == '{' || c == '[') {
      if (depth < INT_SCAN_MAX_DEPTH) {
        st[depth].is_array = c == '[';
        st[depth].want_key = c == '{';
        st[depth].index = 0;
        st[depth].key[0] = '\0';
      }
      depth++;
      i++;
    } else if (c == '}' || c == ']') {
      if (depth > 0)
        depth--;
      i++;
    } else if (c == ',') {
      if (top && top->is_array)
        top->index++;
      else if (top)
        top->want_key = true;
      i++;
    } else if (c == '-' || g_ascii_isdigit (c)) {
      size_t j = i + 1;
      bool integral = true;
      while (j < size && (g_ascii_isdigit (data[j]) || data[j] == '.'
              || data[j] == 'e' || data[j] == 'E' || data[j] == '+'
              || data[j] == '-')) {
        if (!g_ascii_isdigit (data[j]))
          integral = false;
        j++;
      }
      /* json-glib wraps such a literal silently (10^30 reads as -1) */
      if (integral && !int_literal_fits (data + i, j - i)) {
        char path[INT_SCAN_PATH_BYTES];
        scan_path (st, depth, path, sizeof (path));
        snprintf (msg, msg_size, "%s: %.*s%s is out of range; expected an "
            "integer in [-9223372036854775808, 9223372036854775807]", path,
            (int) MIN (j - i, INT_SCAN_SHOWN_DIGITS), data + i,
            j - i > INT_SCAN_SHOWN_DIGITS ? "..." : "");
        return true;
      }
      i = j;
    } else {
      i++;
    }
  }
  return false;
}
