/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */


/* The status codes' strings and the error reports of every layer. */

#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>

/**
 * simnpu_strerror:
 * @code: a #simnpu_status
 *
 * Returns: a static description of @code
 */
const char *
simnpu_strerror (int code)
{
  switch (code) {
    case SIMNPU_OK:
      return "success";
    case SIMNPU_EINVAL:
      return "invalid argument";
    case SIMNPU_ENOMEM:
      return "out of memory or above size limits";
    case SIMNPU_EIO:
      return "input/output error";
    case SIMNPU_EFORMAT:
      return "malformed model";
    case SIMNPU_EVERSION:
      return "unsupported model container version";
    case SIMNPU_EUNSUPPORTED:
      return "unsupported op, type or profile";
    case SIMNPU_ESHAPE:
      return "tensor shape mismatch";
    case SIMNPU_ESIZE:
      return "buffer size mismatch";
    case SIMNPU_ETIMEDOUT:
      return "timed out";
    case SIMNPU_EAGAIN:
      return "not completed yet";
    case SIMNPU_ECANCELED:
      return "cancelled";
    case SIMNPU_ECLOSED:
      return "device is closing";
    case SIMNPU_ENOWEIGHTS:
      return "model has no weights (estimate only)";
    case SIMNPU_ENOENT:
      return "not found";
    case SIMNPU_EINTERNAL:
      return "internal error";
    default:
      return "unknown error";
  }
}

int
simnpu__set_error (simnpu_error * error, int code, const char *format, ...)
{
  va_list args;

  if (error == NULL)
    return code;
  error->code = code;
  va_start (args, format);
  vsnprintf (error->message, sizeof (error->message), format, args);
  va_end (args);
  return code;
}
