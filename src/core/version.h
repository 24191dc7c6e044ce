/* core/version.h — version strings written into artifacts and --version. */
#ifndef GP_CORE_VERSION_H
#define GP_CORE_VERSION_H
#define GP_VERSION "0.1.0"
#define GP_GENAI_PERF_COMPAT_VERSION "0.0.16"
#endif
