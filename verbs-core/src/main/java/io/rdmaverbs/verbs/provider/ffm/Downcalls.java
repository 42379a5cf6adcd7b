package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException.Reason;

import org.jspecify.annotations.Nullable;

/** How the symbol holders get their method handles. */
final class Downcalls {

    static final Linker LINKER = Linker.nativeLinker();

    /** Leaves {@code errno} in a {@link CallState} segment passed as an extra leading argument. */
    static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");

    /**
     * For the data path only (poll, notify, post): calls that return in well under a microsecond and
     * never block or call back into Java, so the JVM may skip the thread-state transition.
     */
    static final Linker.Option CRITICAL = Linker.Option.critical(false);

    /**
     * Every descriptor and option set linked so far, whether or not its symbol was found: what a native
     * image must know ahead of time (the {@code foreign} section of {@code reachability-metadata.json}).
     */
    private static final Set<Linkage> LINKED = ConcurrentHashMap.newKeySet();

    private static final MethodHandle MISSING;

    static {
        try {
            MISSING = MethodHandles.lookup().findStatic(Downcalls.class, "missing",
                    MethodType.methodType(ProviderUnavailableException.class, String.class, String.class,
                            String.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Downcalls() {
    }

    /**
     * One shape of downcall: a descriptor and the options it is linked with.
     *
     * @param descriptor the native signature
     * @param options the linker options, in the order given
     */
    record Linkage(FunctionDescriptor descriptor, List<Linker.Option> options) {

        Linkage {
            options = List.copyOf(options);
        }
    }

    /** The downcall shapes linked so far, by the holder classes initialised so far. */
    static Set<Linkage> linked() {
        return Set.copyOf(LINKED);
    }

    /**
     * A downcall handle for {@code name}; when the library lacks it, a handle of the same type that
     * throws {@link Reason#SYMBOL_MISSING} when called, so that a missing symbol fails only its verb.
     *
     * @param remedy what the user can do about a library too old to have the symbol, in one sentence
     */
    static MethodHandle symbol(@Nullable SymbolLookup lookup, String library, String remedy, String name,
            FunctionDescriptor descriptor, Linker.Option... options) {
        LINKED.add(new Linkage(descriptor, Arrays.asList(options)));
        Optional<MemorySegment> address = lookup == null ? Optional.empty() : lookup.find(name);
        if (address.isEmpty()) {
            String where = lookup == null ? library + " is not loaded" : library + " has no symbol " + name;
            return throwing(where, name, remedy, descriptor, options);
        }
        return LINKER.downcallHandle(address.get(), descriptor, options);
    }

    /**
     * A downcall handle for a function pointer read from a struct, passed as the first argument:
     * one per op, created once, never per call.
     */
    static MethodHandle pointer(FunctionDescriptor descriptor, Linker.Option... options) {
        LINKED.add(new Linkage(descriptor, Arrays.asList(options)));
        return LINKER.downcallHandle(descriptor, options);
    }

    /** Unwraps what {@code invokeExact} declares: our handles throw only unchecked exceptions. */
    static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("unexpected checked exception from a downcall", t);
    }

    private static MethodHandle throwing(String where, String name, String remedy, FunctionDescriptor descriptor,
            Linker.Option... options) {
        MethodType type = descriptor.toMethodType();
        if (Arrays.asList(options).contains(ERRNO)) {
            type = type.insertParameterTypes(0, MemorySegment.class);
        }
        MethodHandle thrower = MethodHandles.throwException(type.returnType(), ProviderUnavailableException.class);
        MethodHandle fresh = MethodHandles.insertArguments(MISSING, 0, where, name, remedy);
        return MethodHandles.dropArguments(MethodHandles.collectArguments(thrower, 0, fresh), 0,
                type.parameterList());
    }

    @SuppressWarnings("unused") // through MISSING
    private static ProviderUnavailableException missing(String where, String name, String remedy) {
        return new ProviderUnavailableException(Reason.SYMBOL_MISSING, where + ", so " + name
                + " cannot be called. The library is older than this binding expects (rdma-core 44 or newer): "
                + remedy);
    }
}
