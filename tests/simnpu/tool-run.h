/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Running the sim-npu tools from a test: under timeout(1) (a tool that
 * hangs is stopped after TOOL_TIMEOUT seconds, which the test may define
 * before including this), with their output and exit status. */

#ifndef __SIMNPU_TOOL_RUN_H__
#define __SIMNPU_TOOL_RUN_H__

#include <glib.h>
#include <string.h>
#include <sys/wait.h>

#ifndef TOOL_TIMEOUT
#define TOOL_TIMEOUT "60"
#endif

typedef struct
{
  gchar *out, *err;
  int status;                   /* the exit status, or -1 if signalled */
} result;

static inline void
result_clear (result * r)
{
  g_free (r->out);
  g_free (r->err);
}

/* Runs a tool with the environment variable @env ("NAME=VALUE") if not
 * NULL. */
static inline result
run_env (const char *env, const char *const *argv)
{
  GPtrArray *a = g_ptr_array_new ();
  gchar **envp = g_get_environ ();
  GError *error = NULL;
  result r = { 0 };
  gint wait = 0;

  g_ptr_array_add (a, (gpointer) "timeout");
  g_ptr_array_add (a, (gpointer) TOOL_TIMEOUT);
  for (; *argv; argv++)
    g_ptr_array_add (a, (gpointer) * argv);
  g_ptr_array_add (a, NULL);
  if (env) {
    gchar **kv = g_strsplit (env, "=", 2);
    envp = g_environ_setenv (envp, kv[0], kv[1], TRUE);
    g_strfreev (kv);
  }
  if (!g_spawn_sync (NULL, (gchar **) a->pdata, envp, G_SPAWN_SEARCH_PATH,
          NULL, NULL, &r.out, &r.err, &wait, &error))
    g_error ("cannot run %s: %s", (const char *) a->pdata[2], error->message);
  r.status = WIFEXITED (wait) ? WEXITSTATUS (wait) : -1;
  g_ptr_array_unref (a);
  g_strfreev (envp);
  return r;
}

static inline result
run (const char *const *argv)
{
  return run_env (NULL, argv);
}

static inline void
expect_success (const result * r)
{
  if (r->status != 0)
    g_error ("expected success; got %d:\n%s%s", r->status, r->out, r->err);
}

#endif /* __SIMNPU_TOOL_RUN_H__ */
