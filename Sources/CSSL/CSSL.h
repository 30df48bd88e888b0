// OpenSSL, only for what libmosquitto does not tell: why the broker's certificate was refused
// (expired, unknown CA...). libmosquitto links the same libssl already.
#ifndef CSSL_H
#define CSSL_H

#include <openssl/ssl.h>
#include <openssl/x509.h>

#endif
