/* The build guard: runs one RUN step of a bot image's build so that the host can bound its disk.
 *
 * Usage: guard COMMAND [ARGUMENT...]  (as the step container's first process)
 *
 * 1. fallocate(2) is refused (EOPNOTSUPP) by a seccomp filter, with no_new_privs, for the
 *    command and everything it starts: disk is taken only by writing bytes, at disk speed,
 *    where the host's watch sees it grow. Other architectures' system calls are refused.
 * 2. The command runs as a child. When it ends, every other process left in the container
 *    is killed and reaped, so nothing writes any more.
 * 3. The guard prints MARKER and waits for SIGUSR1 from outside the container (the host,
 *    once it has measured what the step wrote, sparse files at their full size). The step
 *    ends with the command's status; a step the host refuses is killed and never committed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MARKER "cardarena-build-guard: the step's command ended; the host measures it"

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define FOREIGN_BIT 0x40000000u /* x32 system calls */
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define FOREIGN_BIT 0x80000000u
#else
#error "the build guard knows x86_64 and aarch64 only"
#endif

static int refuse_fallocate(void) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, FOREIGN_BIT, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fallocate, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EOPNOTSUPP & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {
        .len = (unsigned short)(sizeof(filter) / sizeof(filter[0])),
        .filter = filter,
    };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
}

/* Wait for `child`, reaping any other process that ends meanwhile; its wait status. */
static int wait_for(pid_t child) {
    for (;;) {
        int status = 0;
        pid_t ended = waitpid(-1, &status, 0);
        if (ended == child) return status;
        if (ended < 0 && errno != EINTR) return 255 << 8;
    }
}

/* Kill every process of the container but this one, and reap them all. */
static void kill_the_rest(void) {
    kill(-1, SIGKILL);
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s COMMAND [ARGUMENT...]\n", argv[0]);
        return 2;
    }
    sigset_t usr1, previous;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    if (sigprocmask(SIG_BLOCK, &usr1, &previous) != 0 || refuse_fallocate() != 0) {
        perror("cardarena-build-guard: setting up");
        return 125;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("cardarena-build-guard: fork");
        return 125;
    }
    if (child == 0) {
        sigprocmask(SIG_SETMASK, &previous, NULL);
        execvp(argv[1], argv + 1);
        fprintf(stderr, "cardarena-build-guard: cannot run %s: %s\n", argv[1], strerror(errno));
        _exit(127);
    }
    int status = wait_for(child);
    kill_the_rest();
    struct timespec now = {0, 0};
    while (sigtimedwait(&usr1, NULL, &now) == SIGUSR1) {
    }
    fflush(stderr);
    printf("\n%s\n", MARKER);
    fflush(stdout);
    for (;;) {
        siginfo_t info;
        if (sigwaitinfo(&usr1, &info) == SIGUSR1 && info.si_pid == 0) break;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
