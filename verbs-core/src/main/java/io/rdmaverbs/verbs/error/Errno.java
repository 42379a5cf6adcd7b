package io.rdmaverbs.verbs.error;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A Linux errno value with its symbolic name, as libibverbs reports it (either through {@code errno}
 * after a call returned {@code NULL}, or as the return value of a destroy verb).
 *
 * @param number the positive errno number (x86_64/aarch64 Linux numbering)
 * @param name the symbolic name ({@code EBUSY}), or {@code errno <n>} when the number is unknown
 */
public record Errno(int number, String name) {

    public static final Errno EPERM = new Errno(1, "EPERM");
    public static final Errno ENOENT = new Errno(2, "ENOENT");
    public static final Errno EINTR = new Errno(4, "EINTR");
    public static final Errno EIO = new Errno(5, "EIO");
    public static final Errno ENXIO = new Errno(6, "ENXIO");
    public static final Errno EBADF = new Errno(9, "EBADF");
    public static final Errno EAGAIN = new Errno(11, "EAGAIN");
    public static final Errno ENOMEM = new Errno(12, "ENOMEM");
    public static final Errno EACCES = new Errno(13, "EACCES");
    public static final Errno EFAULT = new Errno(14, "EFAULT");
    public static final Errno EBUSY = new Errno(16, "EBUSY");
    public static final Errno EEXIST = new Errno(17, "EEXIST");
    public static final Errno ENODEV = new Errno(19, "ENODEV");
    public static final Errno EINVAL = new Errno(22, "EINVAL");
    public static final Errno ENFILE = new Errno(23, "ENFILE");
    public static final Errno EMFILE = new Errno(24, "EMFILE");
    public static final Errno ENOSPC = new Errno(28, "ENOSPC");
    public static final Errno ERANGE = new Errno(34, "ERANGE");
    public static final Errno ENOSYS = new Errno(38, "ENOSYS");
    public static final Errno ENODATA = new Errno(61, "ENODATA");
    /** A peer that does not speak the session protocol, or another version of it. */
    public static final Errno EPROTO = new Errno(71, "EPROTO");
    public static final Errno EPROTONOSUPPORT = new Errno(93, "EPROTONOSUPPORT");
    public static final Errno EOPNOTSUPP = new Errno(95, "EOPNOTSUPP");
    public static final Errno EADDRINUSE = new Errno(98, "EADDRINUSE");
    public static final Errno EADDRNOTAVAIL = new Errno(99, "EADDRNOTAVAIL");
    public static final Errno ENETDOWN = new Errno(100, "ENETDOWN");
    public static final Errno ENETUNREACH = new Errno(101, "ENETUNREACH");
    public static final Errno ETIMEDOUT = new Errno(110, "ETIMEDOUT");
    public static final Errno ECONNREFUSED = new Errno(111, "ECONNREFUSED");

    private static final Map<Integer, Errno> KNOWN = Map.ofEntries(
            entry(EPERM), entry(ENOENT), entry(EINTR), entry(EIO), entry(ENXIO), entry(EBADF),
            entry(EAGAIN), entry(ENOMEM), entry(EACCES), entry(EFAULT), entry(EBUSY), entry(EEXIST),
            entry(ENODEV), entry(EINVAL), entry(ENFILE), entry(EMFILE), entry(ENOSPC), entry(ERANGE),
            entry(ENOSYS), entry(ENODATA), entry(EPROTO), entry(EPROTONOSUPPORT), entry(EOPNOTSUPP), entry(EADDRINUSE), entry(EADDRNOTAVAIL),
            entry(ENETDOWN), entry(ENETUNREACH), entry(ETIMEDOUT), entry(ECONNREFUSED));

    public Errno {
        if (number <= 0) {
            throw new IllegalArgumentException("errno must be positive, was " + number);
        }
    }

    /**
     * The errno for a number; negative numbers (kernel style {@code -EBUSY}) are accepted.
     */
    public static Errno of(int number) {
        int n = Math.abs(number);
        Errno known = KNOWN.get(n);
        return known != null ? known : new Errno(n, "errno " + n);
    }

    /**
     * The errno values named here, in number order. These are the project's only errno numbers: the
     * native binding compares what it reads against them and the simulator raises them, and a test
     * checks each against {@code <errno.h>}.
     */
    public static List<Errno> known() {
        return KNOWN.values().stream().sorted(Comparator.comparingInt(Errno::number)).toList();
    }

    private static Map.Entry<Integer, Errno> entry(Errno e) {
        return Map.entry(e.number, e);
    }

    @Override
    public String toString() {
        return name;
    }
}
