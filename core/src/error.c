#include <eddy/error.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *eddy_strerror(int code)
{
    switch (code) {
    case EDDY_OK: return "success";
    case EDDY_ERR_INVALID_ARGUMENT: return "invalid argument";
    case EDDY_ERR_OUT_OF_MEMORY: return "out of memory";
    case EDDY_ERR_IO: return "input/output error";
    case EDDY_ERR_PARSE: return "parse error";
    case EDDY_ERR_PLUGIN: return "plugin refused";
    case EDDY_ERR_DOMAIN: return "particle left the domain";
    case EDDY_ERR_UNSTABLE: return "simulation unstable";
    case EDDY_ERR_NOT_FOUND: return "not found";
    case EDDY_ERR_UNSUPPORTED: return "unsupported";
    case EDDY_ERR_DEVICE: return "device error";
    case EDDY_ERR_INTERRUPTED: return "interrupted";
    default: return "unknown error";
    }
}

int eddy_error_set(eddy_error *err, int code, const char *fmt, ...)
{
    if (err) {
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

int eddy_error_prefix(eddy_error *err, const char *fmt, ...)
{
    if (!err) return EDDY_OK;
    char prefix[EDDY_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* Truncation keeps the prefix and as much of the old message as fits. */
    size_t np = strlen(prefix), nm = strlen(err->message);
    if (np > sizeof err->message - 1) np = sizeof err->message - 1;
    if (np + nm > sizeof err->message - 1) nm = sizeof err->message - 1 - np;
    memmove(err->message + np, err->message, nm);
    memcpy(err->message, prefix, np);
    err->message[np + nm] = '\0';
    return err->code;
}

void eddy_error_clear(eddy_error *err)
{
    if (!err) return;
    err->code = EDDY_OK;
    err->message[0] = '\0';
}
