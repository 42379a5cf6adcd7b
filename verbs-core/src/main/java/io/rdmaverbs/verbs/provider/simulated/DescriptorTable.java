package io.rdmaverbs.verbs.provider.simulated;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;

import org.jspecify.annotations.Nullable;

/**
 * The simulated process's file descriptors: files opened to name XRC domains (mapped to the file's
 * identity, its inode) and the descriptors of completion channels. One table per provider, as one
 * process has one.
 */
final class DescriptorTable {

    /** What a descriptor refers to: a file (its {@code fileKey}) or a completion channel. */
    sealed interface Entry permits FileEntry, ChannelEntry {
    }

    record FileEntry(Path path, Object inode) implements Entry {
    }

    record ChannelEntry() implements Entry {
    }

    // Past stdin/out/err and whatever the JVM holds, so the numbers look like descriptors.
    private final AtomicInteger next = new AtomicInteger(100);
    private final Map<Integer, Entry> entries = new ConcurrentHashMap<>();

    /** {@code open(path, O_RDONLY | (create ? O_CREAT : 0))}. */
    int openFile(Path path, boolean create) {
        try {
            if (create) {
                try {
                    Files.createFile(path);
                } catch (FileAlreadyExistsException e) {
                    // O_CREAT without O_EXCL opens an existing file
                }
            }
            BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
            Object inode = attributes.fileKey() != null ? attributes.fileKey() : path.toRealPath();
            int fd = next.getAndIncrement();
            entries.put(fd, new FileEntry(path, inode));
            return fd;
        } catch (NoSuchFileException e) {
            throw new VerbsException("open", path.toString(), Errno.ENOENT,
                    "no such file; pass create=true (O_CREAT) to create it");
        } catch (IOException e) {
            throw new VerbsException("open", path.toString(), Errno.EACCES, "cannot open: " + e.getMessage(), e);
        }
    }

    int openChannel() {
        int fd = next.getAndIncrement();
        entries.put(fd, new ChannelEntry());
        return fd;
    }

    void closeChannel(int fd) {
        entries.remove(fd);
    }

    /** {@code close(fd)} of a file descriptor from {@link #openFile}. */
    void closeFile(int fd) {
        Entry entry = entries.get(fd);
        if (entry == null) {
            throw new VerbsException("close", "fd " + fd, Errno.EBADF, "not an open descriptor of this provider");
        }
        if (entry instanceof ChannelEntry) {
            throw new VerbsException("close", "fd " + fd, Errno.EBADF,
                    "this is a completion channel's descriptor; destroy the channel instead");
        }
        entries.remove(fd);
    }

    /** The file behind a descriptor, or null when the descriptor is not an open file. */
    @Nullable FileEntry file(int fd) {
        return entries.get(fd) instanceof FileEntry file ? file : null;
    }
}
