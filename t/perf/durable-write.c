/* The baseline of p0200-write.sh: a minimal durable atomic replacement of one file, the least
 * any correct tool must do. Write a temp file beside the target, fsync it, rename it over the
 * target, fsync the directory. Usage: durable-write DIR NAME CONTENT */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    char tmp[4096], dst[4096];
    snprintf(tmp, sizeof tmp, "%s/.tmp-%s", argv[1], argv[2]);
    snprintf(dst, sizeof dst, "%s/%s", argv[1], argv[2]);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return 1;
    size_t len = strlen(argv[3]);
    if (write(fd, argv[3], len) != (ssize_t)len || fsync(fd) != 0 || close(fd) != 0) return 1;
    if (rename(tmp, dst) != 0) return 1;
    int dir = open(argv[1], O_RDONLY | O_DIRECTORY);
    if (dir < 0 || fsync(dir) != 0) return 1;
    return close(dir);
}
