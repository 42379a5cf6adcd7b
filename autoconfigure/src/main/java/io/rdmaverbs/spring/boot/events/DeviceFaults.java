package io.rdmaverbs.spring.boot.events;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.AsyncEventType;

/**
 * Remembers which device contexts had a {@code DEVICE_FATAL} event: such a context stays unusable
 * until it is closed and the device opened again, whatever its port says.
 */
public final class DeviceFaults implements VerbsListener {

    private final Map<Long, AsyncEvent> fatal = new ConcurrentHashMap<>();

    @Override
    public void asyncEvent(AsyncEvent event) {
        if (event.type() == AsyncEventType.DEVICE_FATAL) {
            fatal.put(event.context().id(), event);
        }
    }

    @Override
    public void closed(VerbsResource resource) {
        if (resource instanceof DeviceContext) {
            fatal.remove(resource.id());
        }
    }

    /** The fatal event of {@code context}, if it had one. */
    public Optional<AsyncEvent> fatalEvent(DeviceContext context) {
        return Optional.ofNullable(fatal.get(context.id()));
    }
}
