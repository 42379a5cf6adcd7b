package io.rdmaverbs.sample.web;

import java.util.Map;

import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Profile;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Faults injected into the simulated device, only on the {@code simulated} profile:
 * {@code POST /rdma/faults/port?state=DOWN} (or {@code ACTIVE}) changes port 1's state, as a cable pull
 * does (IBV_EVENT_PORT_ERR / IBV_EVENT_PORT_ACTIVE, see {@code ibv_get_async_event(3)});
 * {@code POST /rdma/faults/device-fatal} kills the device (IBV_EVENT_DEVICE_FATAL): from then on its
 * verbs fail with EIO, except the destroys. Both take {@code device}, by default the declared context's.
 */
@RestController
@RequestMapping("/rdma/faults")
@Profile("simulated")
class FaultInjectionController {

    private static final Logger log = LoggerFactory.getLogger(FaultInjectionController.class);

    private final VerbsProvider provider;
    private final String defaultDevice;

    FaultInjectionController(VerbsProvider provider, DeviceContext context) {
        this.provider = provider;
        this.defaultDevice = context.device().name();
    }

    @PostMapping("/port")
    Map<String, Object> port(@RequestParam PortState state, @RequestParam(defaultValue = "1") int port,
            @RequestParam(required = false) @Nullable String device) {
        String name = device == null ? defaultDevice : device;
        simulated().setPortState(name, port, state);
        log.warn("fault injected: port {} of {} is now {}", port, name, state);
        return Map.of("device", name, "port", port, "state", state.name());
    }

    @PostMapping("/device-fatal")
    Map<String, Object> deviceFatal(@RequestParam(required = false) @Nullable String device) {
        String name = device == null ? defaultDevice : device;
        simulated().injectDeviceFatal(name);
        log.warn("fault injected: device {} had a fatal error", name);
        return Map.of("device", name, "fatal", true);
    }

    private SimulatedProvider simulated() {
        if (provider instanceof SimulatedProvider simulated) {
            return simulated;
        }
        throw new IllegalStateException("faults are injected into the simulated provider only; this application "
                + "runs on the " + provider.name() + " provider (rdma.verbs.provider)");
    }

    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.NOT_FOUND)
    String notFound(IllegalArgumentException e) {
        return e.getMessage();
    }

    @ExceptionHandler(IllegalStateException.class)
    @ResponseStatus(HttpStatus.CONFLICT)
    String conflict(IllegalStateException e) {
        return e.getMessage();
    }
}
