package io.rdmaverbs.spring.boot.info;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The rdma-core release of the libibverbs this process has mapped, read from the library's file name.
 * libibverbs exports no version call, and {@code ibv_get_device_list(3)} and {@code ibv_query_device(3)}
 * report devices and firmware ({@code fw_ver}), not the library; but rdma-core's build names the shared
 * object {@code libibverbs.so.1.<ABI minor>.<release>} (its Documentation/versioning.md), e.g.
 * {@code libibverbs.so.1.14.44.0} for rdma-core 44.0, and the kernel lists the file behind the
 * {@code libibverbs.so.1} link in {@code /proc/self/maps}. A library built otherwise has no such name,
 * and then there is no version to report.
 */
final class LibibverbsVersion {

    private static final Pattern FILE = Pattern.compile("libibverbs\\.so\\.1\\.\\d+\\.(\\d+\\.\\d+)");
    private static final Path MAPS = Path.of("/proc/self/maps");

    private LibibverbsVersion() {
    }

    /** The release of the libibverbs mapped into this process, when its file name tells it. */
    static Optional<String> ofThisProcess() {
        try (Stream<String> maps = Files.lines(MAPS)) {
            return ofMaps(maps.toList());
        } catch (IOException | UncheckedIOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** The release named by the first libibverbs file among {@code /proc/<pid>/maps} lines. */
    static Optional<String> ofMaps(List<String> lines) {
        for (String line : lines) {
            int slash = line.lastIndexOf('/');
            Optional<String> release = slash < 0 ? Optional.empty() : ofFileName(line.substring(slash + 1).trim());
            if (release.isPresent()) {
                return release;
            }
        }
        return Optional.empty();
    }

    /** The release in a file name such as {@code libibverbs.so.1.14.44.0}; none for {@code libibverbs.so.1}. */
    static Optional<String> ofFileName(String fileName) {
        Matcher m = FILE.matcher(fileName);
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
