/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device ops' names, from their one list (SIMNPU_DEVICE_OPS). */

#include "base/ops.h"

#include <string.h>

#define OP_NAME(id, name) [SIMNPU_OP_##id] = name,
static const char *const op_names[] = {
  SIMNPU_DEVICE_OPS (OP_NAME)
};

#undef OP_NAME

G_STATIC_ASSERT (G_N_ELEMENTS (op_names) == SIMNPU_N_OP_TYPES);

const char *
simnpu__op_type_name (simnpu__op_type type)
{
  if ((unsigned) type >= SIMNPU_N_OP_TYPES)
    return "unknown";
  return op_names[type];
}

int
simnpu__op_type_from_name (const char *name)
{
  int i;

  for (i = 0; i < SIMNPU_N_OP_TYPES; i++)
    if (strcmp (op_names[i], name) == 0)
      return i;
  return -1;
}
