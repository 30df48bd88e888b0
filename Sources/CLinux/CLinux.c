// Most functions live in include/CLinux.h; SwiftPM needs one C file per C target, and the
// few that need GNU declarations are here.
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include "CLinux.h"

int CLinux_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int CLinux_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
