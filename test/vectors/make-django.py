#!/usr/bin/env python3
"""Writes test/vectors/django.json: Django's stored password formats made
with Python's standard library, following django/contrib/auth/hashers.py
(Django itself cannot be installed here), plus the fixed strings Django's
own test suite checks (tests/auth_tests/test_hashers.py).

    python3 test/vectors/make-django.py

The recipes, as Django writes them:
  PBKDF2PasswordHasher / PBKDF2SHA1PasswordHasher.encode:
    hash = hashlib.pbkdf2_hmac(digest, password.encode(), salt.encode(), iterations)  # dklen: the digest's
    "%s$%d$%s$%s" % (algorithm, iterations, salt, base64.b64encode(hash).decode("ascii").strip())
  ScryptPasswordHasher.encode:
    hash = hashlib.scrypt(password.encode(), salt=salt.encode(), n=n, r=r, p=p, maxmem=0, dklen=64)
    "%s$%d$%s$%d$%d$%s" % ("scrypt", n, salt, r, p, base64.b64encode(hash).decode("ascii").strip())
  salt(): get_random_string(22, RANDOM_STRING_CHARS) (letters and digits).
Argon2 and bcrypt strings need argon2-cffi and bcrypt, not installable
here: make-django-node.js writes those with npm argon2 and npm bcrypt.
"""

import base64
import hashlib
import json
import math
import os
import secrets
import string

RANDOM_STRING_CHARS = string.ascii_letters + string.digits


def salt():
    return "".join(secrets.choice(RANDOM_STRING_CHARS) for _ in range(math.ceil(128 / math.log2(62))))


def pbkdf2(algorithm, digest, password, salt, iterations):
    key = hashlib.pbkdf2_hmac(digest, password.encode(), salt.encode(), iterations)
    return "%s$%d$%s$%s" % (algorithm, iterations, salt, base64.b64encode(key).decode("ascii").strip())


def scrypt(password, salt, n, r, p):
    key = hashlib.scrypt(password.encode(), salt=salt.encode(), n=n, r=r, p=p, maxmem=0, dklen=64)
    return "%s$%d$%s$%d$%d$%s" % ("scrypt", n, salt, r, p, base64.b64encode(key).decode("ascii").strip())


PASSWORDS = ["lètmein", "", "correct horse battery staple", "p\u00e4ssw\u00f6rd \U0001F511", "x" * 200]

generated = []
for pw in PASSWORDS:
    s = salt()
    # Django's iteration counts grow with each release (1,000,000 in 5.2);
    # small counts keep the suite quick and mean the same.
    generated.append({"password": pw, "hash": pbkdf2("pbkdf2_sha256", "sha256", pw, s, 1000)})
    generated.append({"password": pw, "hash": pbkdf2("pbkdf2_sha1", "sha1", pw, s, 1000)})
    generated.append({"password": pw, "hash": scrypt(pw, s, 2 ** 10, 8, 1)})
# Django's defaults: scrypt 2^14, 8, 1; a salt of other characters.
generated.append({"password": "lètmein", "hash": scrypt("lètmein", salt(), 2 ** 14, 8, 1)})
generated.append({"password": "lètmein", "hash": scrypt("lètmein", "s\u00e9l-de-mer", 2 ** 4, 2, 2)})
generated.append({"password": "lètmein", "hash": pbkdf2("pbkdf2_sha256", "sha256", "lètmein", "sea salt.", 1)})

published = [
    {"password": "lètmein", "hash": "pbkdf2_sha256$390000$seasalt$8xBlGd3jVgvJ+92hWPxi5ww0uuAuAnKgC45eudxro7c="},
    {"password": "lètmein", "hash": "pbkdf2_sha256$390000$seasalt2$geC/uZ92nRXDSjSxeoiBqYyRcrLzMm8xK3ro1QS1uo8="},
    {"password": "lètmein", "hash": "pbkdf2_sha1$390000$seasalt2$aDapRanzW8aHTz97v2TcfHzWD+I="},
    {"password": "lètmein", "hash": "scrypt$16384$seasalt$8$1$Qj3+9PPyRjSJIebHnG81TMjsqtaIGxNQG/aEB/NY"
                                   "afTJ7tibgfYz71m0ldQESkXFRkdVCBhhY8mx7rQwite/Pw=="},
    {"password": "secret", "hash": "argon2$argon2i$m=8,t=1,p=1$c29tZXNhbHQ$gwQOXSNhxiOxPOA0+PY10P9QFO"
                                  "4NAYysnqRt1GSQLE55m+2GYDt9FEjPMHhP2Cuf0nOEXXMocVrsJAtNSsKyfg"},
    {"password": "secret", "hash": "argon2$argon2i$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$YC9+jJCrQhs5R6db7LlN8Q"},
    {"password": "secret", "hash": "argon2$argon2id$v=19$m=102400,t=2,p=8$Y041dExhNkljRUUy$TMa6A8fPJhCAUXRhJXCXdw"},
]
# The recipe above reproduces Django's published PBKDF2 and scrypt strings.
assert pbkdf2("pbkdf2_sha256", "sha256", "lètmein", "seasalt", 390000) == published[0]["hash"]
assert pbkdf2("pbkdf2_sha1", "sha1", "lètmein", "seasalt2", 390000) == published[2]["hash"]
assert scrypt("lètmein", "seasalt", 16384, 8, 1) == published[3]["hash"]

out = {
    "description": "Django stored passwords. generated: Python's hashlib following Django's hashers "
                   "(test/vectors/make-django.py); published: fixed strings from Django's "
                   "tests/auth_tests/test_hashers.py. Every hash verifies with its password only.",
    "generated": generated,
    "published": published,
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "django.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=2)
    f.write("\n")
