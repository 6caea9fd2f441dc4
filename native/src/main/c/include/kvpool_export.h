/* Symbol visibility: the library is built with -fvisibility=hidden; only KVPOOL_API names are exported. */
#ifndef KVPOOL_EXPORT_H
#define KVPOOL_EXPORT_H

#define KVPOOL_API __attribute__((visibility("default")))

#endif
