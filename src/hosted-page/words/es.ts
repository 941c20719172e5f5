import type { PageWords } from "./page-words.ts";

/** The page's words in Spanish (formal: usted). */
export const es: PageWords = {
  submit: "Enviar",
  back: "Atrás",
  next: "Siguiente",
  stepOf: "Paso {step} de {count}",
  stepName: "Paso {step}",
  steps: "Pasos",
  choose: "Seleccione…",
  formName: "Formulario",
  fieldsToCorrect: "Campos por corregir",
  anyFiles: "Cualquier número de archivos",
  upToFiles: { one: "Hasta {count} archivo", other: "Hasta {count} archivos" },
  eachAtMost: "{size} como máximo cada uno",
  bytes: { one: "{count} byte", other: "{count} bytes" },
  kilobytes: "{size} kB",
  megabytes: "{size} MB",
  closed: {
    closed: "Este formulario ya no acepta nuevas respuestas.",
    sold_out: "Este formulario ha alcanzado el número máximo de respuestas.",
  },
  notFound: {
    title: "Formulario no encontrado",
    message: "No hay ningún formulario en esta dirección, o no está disponible para usted.",
  },
  badAddress: {
    title: "Formulario no encontrado",
    message: "Esta dirección no corresponde a ningún formulario.",
  },
  disabled: {
    title: "Este formulario está cerrado",
    message: "Este formulario está desactivado y no acepta respuestas.",
  },
  signIn: {
    title: "Es necesario iniciar sesión",
    message: "Este formulario solo está disponible para personas que han iniciado sesión.",
  },
  cannotShow: "No se puede mostrar este formulario",
  script: {
    required: "(obligatorio)",
    soldOut: "{option} (agotado)",
    fixFields: "Por favor, corrija los campos marcados a continuación.",
    notSent: "No se pudo enviar el formulario.",
    offline: "No se pudo enviar el formulario. Compruebe su conexión e inténtelo de nuevo.",
    thanks: "Gracias por su respuesta.",
    uploadOf: "Carga de {file}",
    uploadUnprepared: "{file}: no se pudo preparar la carga.",
    uploadFailed: "{file}: la carga ha fallado ({status}).",
    uploadUnreached: "{file}: el archivo no llegó al servidor.",
    tooManyChosen: {
      one: "Seleccione como máximo {count} archivo.",
      other: "Seleccione como máximo {count} archivos.",
    },
    fileTooLarge: "{file} supera el tamaño permitido.",
    fileNotUploaded: "Un archivo no se ha cargado. Selecciónelo de nuevo.",
    payment: {
      paid: "Pago recibido. ¡Gracias!",
      confirming: "Confirmando el pago…",
      unconfirmed:
        "Su pago aún no está confirmado. Vuelva a cargar esta página en un momento para comprobarlo.",
      notCompleted: "Pago no completado.",
      tryAgain: "Intentar de nuevo",
      closed: "Este pedido ya no se puede pagar. Vuelva a rellenar el formulario.",
      unreached:
        "No se ha podido comprobar el pago en este momento. Inténtelo de nuevo en un momento.",
    },
    problems: {
      required: "{label}: este campo es obligatorio.",
      too_long: {
        one: "{label}: escriba como máximo {count} carácter.",
        other: "{label}: escriba como máximo {count} caracteres.",
      },
      not_email: "{label}: introduzca una dirección de correo electrónico válida.",
      not_number: "{label}: introduzca un número.",
      too_small: "{label}: el valor debe ser como mínimo {min}.",
      too_large: "{label}: el valor debe ser como máximo {max}.",
      not_date: "{label}: introduzca una fecha con el formato AAAA-MM-DD.",
      not_attachments: "{label}: los archivos cargados no son válidos. Selecciónelos de nuevo.",
      repeated_attachment: "{label}: un mismo archivo aparece más de una vez.",
      too_many_files: {
        one: "{label}: seleccione como máximo {count} archivo.",
        other: "{label}: seleccione como máximo {count} archivos.",
      },
      not_an_option: "{label}: seleccione una de las opciones disponibles.",
      repeated_option: "{label}: ha elegido una misma opción más de una vez.",
      sold_out: "{label}: «{option}» está agotado.",
    },
  },
};
