// libmosquitto, the MQTT client library (Debian libmosquitto-dev), with its MQTT 5 reason codes
// and property identifiers, and the OpenSSL calls that learn why a broker's certificate was
// refused (libmosquitto's TLS is OpenSSL's). Neither is linked: fleet control loads them
// (dlopen) when it first sets up a connection, so a kiosk without [mqtt] never maps them
// (libmosquitto, libssl and libcrypto: 1.8 MB of a kiosk's resident pages).
#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

// Every function the kiosk calls, by library: the one list the table and its loader are made from.
#define CMOSQUITTO_MOSQUITTO_FUNCTIONS(X) \
    X(mosquitto_lib_init) X(mosquitto_new) X(mosquitto_destroy) X(mosquitto_user_data_set) \
    X(mosquitto_threaded_set) X(mosquitto_will_set) X(mosquitto_username_pw_set) \
    X(mosquitto_int_option) X(mosquitto_void_option) X(mosquitto_tls_set) X(mosquitto_tls_opts_set) \
    X(mosquitto_connect) X(mosquitto_connect_bind_v5) X(mosquitto_disconnect) X(mosquitto_loop) \
    X(mosquitto_publish) X(mosquitto_subscribe) X(mosquitto_subscribe_v5) \
    X(mosquitto_property_add_int32) X(mosquitto_property_free_all) \
    X(mosquitto_connect_callback_set) X(mosquitto_disconnect_callback_set) \
    X(mosquitto_publish_callback_set) X(mosquitto_message_callback_set) X(mosquitto_log_callback_set) \
    X(mosquitto_strerror) X(mosquitto_connack_string) X(mosquitto_reason_string)
#define CMOSQUITTO_SSL_FUNCTIONS(X) \
    X(TLS_client_method) X(SSL_CTX_new) X(SSL_CTX_free) X(SSL_CTX_set_ex_data) X(SSL_CTX_get_ex_data) \
    X(SSL_CTX_set_cert_verify_callback) X(SSL_CTX_set_info_callback) X(SSL_get_SSL_CTX) \
    X(SSL_alert_desc_string_long) X(X509_STORE_CTX_set_verify_cb) X(X509_STORE_CTX_get0_param) \
    X(X509_STORE_CTX_get_error) X(X509_VERIFY_PARAM_set1_host) X(X509_VERIFY_PARAM_set1_ip_asc) \
    X(X509_verify_cert) X(X509_verify_cert_error_string)

/// The functions fleet control calls, found in the loaded libraries.
struct cmosquitto_library {
#define CMOSQUITTO_FIELD(name) __typeof__(name) *_Nonnull name;
    CMOSQUITTO_MOSQUITTO_FUNCTIONS(CMOSQUITTO_FIELD)
    CMOSQUITTO_SSL_FUNCTIONS(CMOSQUITTO_FIELD)
#undef CMOSQUITTO_FIELD
};

/// Loads `mosquitto` and `ssl` (names as dlopen takes them) and finds every function; NULL,
/// with why in `error`, when a library or a function is missing. Loaded for good: never closed.
static inline const struct cmosquitto_library *_Nullable
cmosquitto_library_load(const char *_Nonnull mosquitto, const char *_Nonnull ssl,
                        char *_Nonnull error, size_t error_size) {
    void *libraries[2] = { dlopen(mosquitto, RTLD_NOW | RTLD_LOCAL), NULL };
    if (libraries[0]) libraries[1] = dlopen(ssl, RTLD_NOW | RTLD_LOCAL);
    struct cmosquitto_library *table = malloc(sizeof *table);
    if (!libraries[0] || !libraries[1] || !table) {
        const char *why = dlerror();
        snprintf(error, error_size, "%s", why ? why : "out of memory");
        goto failed;
    }
    // Function pointers from dlsym's object pointers: what POSIX guarantees dlsym gives.
#define CMOSQUITTO_FIND(in, name) \
    if (!(table->name = (__typeof__(table->name))dlsym(libraries[in], #name))) { \
        snprintf(error, error_size, "%s has no %s", in == 0 ? mosquitto : ssl, #name); \
        goto failed; \
    }
#define CMOSQUITTO_FIND_MOSQUITTO(name) CMOSQUITTO_FIND(0, name)
#define CMOSQUITTO_FIND_SSL(name) CMOSQUITTO_FIND(1, name)
    CMOSQUITTO_MOSQUITTO_FUNCTIONS(CMOSQUITTO_FIND_MOSQUITTO)
    CMOSQUITTO_SSL_FUNCTIONS(CMOSQUITTO_FIND_SSL)
#undef CMOSQUITTO_FIND_SSL
#undef CMOSQUITTO_FIND_MOSQUITTO
#undef CMOSQUITTO_FIND
    return table;
failed:
    free(table);
    for (int i = 0; i < 2; i++) if (libraries[i]) dlclose(libraries[i]);
    return NULL;
}

#endif
