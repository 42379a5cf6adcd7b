package io.rdmaverbs.verbs;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import io.rdmaverbs.verbs.provider.AddressHandleVerbs;
import io.rdmaverbs.verbs.provider.AsyncEventVerbs;
import io.rdmaverbs.verbs.provider.CompletionVerbs;
import io.rdmaverbs.verbs.provider.ConnectionVerbs;
import io.rdmaverbs.verbs.provider.DeviceVerbs;
import io.rdmaverbs.verbs.provider.DomainVerbs;
import io.rdmaverbs.verbs.provider.MemoryRegionVerbs;
import io.rdmaverbs.verbs.provider.QueuePairVerbs;
import io.rdmaverbs.verbs.provider.SharedReceiveQueueVerbs;
import io.rdmaverbs.verbs.provider.VerbsProvider;

import org.jspecify.annotations.Nullable;

/**
 * A provider that hands out another provider's verb groups, for tests that change how one group
 * behaves (override its accessor) or watch every group handed out ({@link #handOut}).
 */
class ForwardingProvider implements VerbsProvider {

    /** One call of a verb-group method: go on with {@link Call#proceed()}, or answer instead. */
    interface Around {
        @Nullable Object call(Method verb, Object[] args, Call call) throws Throwable;
    }

    interface Call {
        @Nullable Object proceed() throws Throwable;
    }

    final VerbsProvider delegate;

    ForwardingProvider(VerbsProvider delegate) {
        this.delegate = delegate;
    }

    /** {@code target} as a {@code group} whose every verb runs through {@code around}. */
    static <T> T around(Class<T> group, T target, Around around) {
        return group.cast(Proxy.newProxyInstance(ForwardingProvider.class.getClassLoader(), new Class<?>[] {group},
                (proxy, method, args) -> around.call(method, args, () -> {
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                })));
    }

    /** Every group handed out passes here; returns it unchanged. */
    <G> G handOut(G group) {
        return group;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public DeviceVerbs deviceVerbs() {
        return handOut(delegate.deviceVerbs());
    }

    @Override
    public DomainVerbs domainVerbs() {
        return handOut(delegate.domainVerbs());
    }

    @Override
    public CompletionVerbs completionVerbs() {
        return handOut(delegate.completionVerbs());
    }

    @Override
    public SharedReceiveQueueVerbs sharedReceiveQueueVerbs() {
        return handOut(delegate.sharedReceiveQueueVerbs());
    }

    @Override
    public QueuePairVerbs queuePairVerbs() {
        return handOut(delegate.queuePairVerbs());
    }

    @Override
    public MemoryRegionVerbs memoryRegionVerbs() {
        return handOut(delegate.memoryRegionVerbs());
    }

    @Override
    public AddressHandleVerbs addressHandleVerbs() {
        return handOut(delegate.addressHandleVerbs());
    }

    @Override
    public AsyncEventVerbs asyncEventVerbs() {
        return handOut(delegate.asyncEventVerbs());
    }

    @Override
    public ConnectionVerbs connectionVerbs() {
        return handOut(delegate.connectionVerbs());
    }
}
